import type { ModelConfig } from '../model/model-config.js';

/** A model's limits in tokens: its context window and the most it may answer. */
export interface ModelWindow {
  contextWindow: number;
  maxOutputTokens: number;
}

/**
 * The providers' current models, matched by id prefix (longest first), from the providers'
 * model pages. A model missing here gets `unknownModelWindow`, which is small on purpose: a
 * window taken too small costs an early compaction, one taken too large a failed call.
 */
const catalog: readonly (readonly [provider: string, prefix: string, window: ModelWindow])[] = [
  ['openai', 'gpt-5', { contextWindow: 400_000, maxOutputTokens: 128_000 }],
  ['openai', 'gpt-4.1', { contextWindow: 1_047_576, maxOutputTokens: 32_768 }],
  ['openai', 'gpt-4o', { contextWindow: 128_000, maxOutputTokens: 16_384 }],
  ['openai', 'o4-mini', { contextWindow: 200_000, maxOutputTokens: 100_000 }],
  ['openai', 'o3', { contextWindow: 200_000, maxOutputTokens: 100_000 }],
  ['openai', 'o1', { contextWindow: 200_000, maxOutputTokens: 100_000 }],
  ['openai', 'gpt-4-turbo', { contextWindow: 128_000, maxOutputTokens: 4_096 }],
  ['openai', 'gpt-3.5-turbo', { contextWindow: 16_385, maxOutputTokens: 4_096 }],
  ['anthropic', 'claude-opus-4', { contextWindow: 200_000, maxOutputTokens: 32_000 }],
  ['anthropic', 'claude-sonnet-4', { contextWindow: 200_000, maxOutputTokens: 64_000 }],
  ['anthropic', 'claude-haiku-4', { contextWindow: 200_000, maxOutputTokens: 64_000 }],
  ['anthropic', 'claude-3-7-sonnet', { contextWindow: 200_000, maxOutputTokens: 64_000 }],
  ['anthropic', 'claude-3-5', { contextWindow: 200_000, maxOutputTokens: 8_192 }],
  ['anthropic', 'claude-3', { contextWindow: 200_000, maxOutputTokens: 4_096 }],
  ['google', 'gemini-2.5', { contextWindow: 1_048_576, maxOutputTokens: 65_536 }],
  ['google', 'gemini-2.0', { contextWindow: 1_048_576, maxOutputTokens: 8_192 }],
  ['google', 'gemini-3', { contextWindow: 1_048_576, maxOutputTokens: 65_536 }],
  ['google', 'gemini-1.5-pro', { contextWindow: 2_097_152, maxOutputTokens: 8_192 }],
  ['google', 'gemini-1.5-flash', { contextWindow: 1_048_576, maxOutputTokens: 8_192 }],
  ['mistral', 'mistral-large', { contextWindow: 128_000, maxOutputTokens: 32_000 }],
  ['mistral', 'mistral-medium', { contextWindow: 128_000, maxOutputTokens: 32_000 }],
  ['mistral', 'mistral-small', { contextWindow: 128_000, maxOutputTokens: 32_000 }],
  ['mistral', 'codestral', { contextWindow: 256_000, maxOutputTokens: 32_000 }],
  ['groq', 'llama-3.3-70b', { contextWindow: 131_072, maxOutputTokens: 32_768 }],
  ['groq', 'llama-3.1-8b', { contextWindow: 131_072, maxOutputTokens: 131_072 }],
  ['groq', 'openai/gpt-oss', { contextWindow: 131_072, maxOutputTokens: 65_536 }],
  ['xai', 'grok-4', { contextWindow: 256_000, maxOutputTokens: 64_000 }],
  ['xai', 'grok-3', { contextWindow: 131_072, maxOutputTokens: 32_000 }],
  ['deepseek', 'deepseek-chat', { contextWindow: 128_000, maxOutputTokens: 8_192 }],
  ['deepseek', 'deepseek-reasoner', { contextWindow: 128_000, maxOutputTokens: 64_000 }],
  ['bedrock', 'anthropic.claude', { contextWindow: 200_000, maxOutputTokens: 8_192 }],
  ['bedrock', 'us.anthropic.claude', { contextWindow: 200_000, maxOutputTokens: 8_192 }],
  ['bedrock', 'amazon.nova', { contextWindow: 300_000, maxOutputTokens: 5_000 }],
];

/** A model that is not in the catalog and has no `config.model.contextWindow`: a window most current models exceed. */
export const unknownModelWindow: ModelWindow = { contextWindow: 32_000, maxOutputTokens: 4_096 };

const sorted = [...catalog].sort((left, right) => right[1].length - left[1].length);

/** The catalog's window of `provider`'s model `modelId` (Azure deployments are looked up as OpenAI models). */
export function catalogWindow(provider: string, modelId: string): ModelWindow | undefined {
  const family = provider === 'azure' ? 'openai' : provider;
  const id = modelId.toLowerCase();
  return sorted.find(([name, prefix]) => name === family && (id.startsWith(prefix) || id.includes(`/${prefix}`)))?.[2];
}

/**
 * The window a turn works in: `config.model.contextWindow` over the catalog over the default.
 * `inputBudget` is what input may take: the window less the answer's room
 * (`config.model.maxOutputTokens`, else the model's limit, at most an eighth of the window).
 */
export function modelWindowOf(model: Pick<ModelConfig, 'provider' | 'id' | 'contextWindow' | 'maxOutputTokens'> | undefined): ModelWindow & { inputBudget: number } {
  const known = model ? catalogWindow(model.provider, model.id) : undefined;
  const contextWindow = model?.contextWindow ?? known?.contextWindow ?? unknownModelWindow.contextWindow;
  const maxOutputTokens = Math.min(model?.maxOutputTokens ?? Math.min(known?.maxOutputTokens ?? unknownModelWindow.maxOutputTokens, Math.floor(contextWindow / 8)), Math.floor(contextWindow / 2));
  return { contextWindow, maxOutputTokens, inputBudget: contextWindow - maxOutputTokens };
}
