import { createGroq } from '@ai-sdk/groq';
import type { JSONValue } from 'ai';
import { z } from 'zod';
import { defineProvider } from './provider-definition.js';
import { connectionOptions, keyedConnection, sharedFieldDescriptions } from './provider-fields.js';

const settings = z.strictObject(keyedConnection);

/** Groq through `@ai-sdk/groq`; reasoning is its effort, the reasoning text parsed out. */
export const groqProvider = defineProvider<z.infer<typeof settings>>({
  settings,
  fields: sharedFieldDescriptions,
  endpoint: (config) => config.baseURL,
  create: (config, modelId, fetch) => ({ model: createGroq({ apiKey: config.apiKey, ...connectionOptions(config), fetch })(modelId), optionsKey: 'groq' }),
  reasoning: (level): Record<string, JSONValue> => (level === 'none' ? { reasoningEffort: 'none' } : { reasoningEffort: level, reasoningFormat: 'parsed' }),
});
