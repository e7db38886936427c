import { createOpenAI, openai } from '@ai-sdk/openai';
import { z } from 'zod';
import { defineProvider } from './provider-definition.js';
import { connectionOptions, keyedConnection, sharedFieldDescriptions } from './provider-fields.js';

const settings = z.strictObject({
  ...keyedConnection,
  /** The short form: the model id when `config.model` is absent (agents stored before `config.model`). */
  model: z.string({ error: 'must be a string (the model id)' }).min(1, 'must not be empty').optional(),
  api: z.enum(['responses', 'chat'], { error: 'must be "responses" or "chat"' }).optional(),
});

export type OpenAiProviderConfig = z.infer<typeof settings>;

/**
 * OpenAI through `@ai-sdk/openai`. `api: "responses"` (default) speaks the Responses API with
 * `store: false`, so every call carries the whole conversation and works against stateless
 * OpenAI-compatible servers; `api: "chat"` speaks Chat Completions.
 */
export const openAiProvider = defineProvider<OpenAiProviderConfig>({
  settings,
  fields: { ...sharedFieldDescriptions, model: 'model id (the short form, used when config.model is absent)', api: '"responses" (default) or "chat"' },
  endpoint: (config) => config.baseURL,
  create: (config, modelId, fetch) => {
    const provider = createOpenAI({ apiKey: config.apiKey, ...connectionOptions(config), fetch });
    const api = config.api ?? 'responses';
    return {
      model: api === 'chat' ? provider.chat(modelId) : provider.responses(modelId),
      optionsKey: 'openai',
      ...(api === 'responses' ? { baseOptions: { store: false } } : {}),
    };
  },
  // The Responses API streams the reasoning only as a summary, which it sends when asked.
  reasoning: (level, config) => ({ reasoningEffort: level, ...(level !== 'none' && (config.api ?? 'responses') === 'responses' ? { reasoningSummary: 'auto' } : {}) }),
  // Chat Completions has no provider-run tools; the Responses API has these.
  tools: (config) => ((config.api ?? 'responses') === 'chat' ? {} : { betaSearch: () => openai.tools.webSearch({}), codeExecution: () => openai.tools.codeInterpreter({}) }),
});
