import { amazonBedrockProvider } from './amazon-bedrock.js';
import { anthropicProvider } from './anthropic.js';
import { azureProvider } from './azure.js';
import { deepSeekProvider } from './deepseek.js';
import { googleProvider } from './google.js';
import { groqProvider } from './groq.js';
import { mistralProvider } from './mistral.js';
import { openAiCompatibleProvider } from './openai-compatible.js';
import { openAiProvider } from './openai.js';
import type { ProviderDefinition } from './provider-definition.js';
import { xaiProvider } from './xai.js';

/** Every model provider, keyed by its name in `config.provider.<name>` and `config.model.provider`. */
export const providerRegistry = {
  openai: openAiProvider,
  anthropic: anthropicProvider,
  google: googleProvider,
  'amazon-bedrock': amazonBedrockProvider,
  azure: azureProvider,
  mistral: mistralProvider,
  groq: groqProvider,
  xai: xaiProvider,
  deepseek: deepSeekProvider,
  'openai-compatible': openAiCompatibleProvider,
} satisfies Record<string, ProviderDefinition>;

export type ProviderName = keyof typeof providerRegistry;

export const providerNames = Object.keys(providerRegistry) as ProviderName[];

export function isProviderName(name: string): name is ProviderName {
  return Object.hasOwn(providerRegistry, name);
}
