import { createMistral } from '@ai-sdk/mistral';
import { z } from 'zod';
import { defineProvider } from './provider-definition.js';
import { connectionOptions, keyedConnection, sharedFieldDescriptions } from './provider-fields.js';

const settings = z.strictObject(keyedConnection);

/** Mistral through `@ai-sdk/mistral`; its reasoning effort is only "none" or "high". */
export const mistralProvider = defineProvider<z.infer<typeof settings>>({
  settings,
  fields: sharedFieldDescriptions,
  endpoint: (config) => config.baseURL,
  create: (config, modelId, fetch) => ({ model: createMistral({ apiKey: config.apiKey, ...connectionOptions(config), fetch })(modelId), optionsKey: 'mistral' }),
  reasoning: (level) => ({ reasoningEffort: level === 'none' ? 'none' : 'high' }),
});
