import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { z } from 'zod';
import { httpUrlSchema } from '../../outbound/http-url.js';
import { defineProvider } from './provider-definition.js';
import { headersField, sharedFieldDescriptions } from './provider-fields.js';

const settings = z.strictObject({
  baseURL: httpUrlSchema,
  name: z.string({ error: 'must be a string' }).regex(/^[a-zA-Z0-9_-]{1,40}$/, 'must be 1 to 40 letters, digits, "_" or "-"').optional(),
  apiKey: z.string({ error: 'must be a string' }).min(1, 'must not be empty').optional(),
  headers: headersField,
  structuredOutputs: z.boolean({ error: 'must be true or false' }).optional(),
});

/**
 * Any server speaking OpenAI's Chat Completions (vLLM, Ollama, LM Studio, OpenRouter...) through
 * `@ai-sdk/openai-compatible`, usage included in the stream. The key is optional (local servers
 * take none); the client never reads one from the environment.
 */
export const openAiCompatibleProvider = defineProvider<z.infer<typeof settings>>({
  settings,
  fields: {
    baseURL: 'API base URL (required; under the outbound policy)',
    name: 'provider name (optional, default "openai-compatible"; names the provider in usage metadata)',
    apiKey: 'API key (secret, optional)',
    headers: sharedFieldDescriptions.headers,
    structuredOutputs: 'send a structured output\'s JSON Schema as response_format json_schema (optional, default true; false sends json_object alone)',
  },
  endpoint: (config) => config.baseURL,
  create: (config, modelId, fetch) => {
    const provider = createOpenAICompatible({
      name: config.name ?? 'openai-compatible',
      baseURL: config.baseURL,
      ...(config.apiKey ? { apiKey: config.apiKey } : {}),
      ...(config.headers ? { headers: config.headers } : {}),
      includeUsage: true,
      // config.model.output's schema goes to the server (vLLM, Ollama, LM Studio and OpenRouter take json_schema).
      supportsStructuredOutputs: config.structuredOutputs ?? true,
      fetch,
    });
    return { model: provider.chatModel(modelId), optionsKey: 'openaiCompatible' };
  },
  reasoning: (level) => ({ reasoningEffort: level }),
});
