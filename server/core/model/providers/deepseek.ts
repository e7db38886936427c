import { createDeepSeek } from '@ai-sdk/deepseek';
import type { JSONValue } from 'ai';
import { z } from 'zod';
import { defineProvider } from './provider-definition.js';
import { connectionOptions, keyedConnection, sharedFieldDescriptions } from './provider-fields.js';

const settings = z.strictObject(keyedConnection);

/** DeepSeek's own efforts for low, medium and high. */
const efforts = { low: 'low', medium: 'high', high: 'max' } as const;

/** DeepSeek through `@ai-sdk/deepseek`; reasoning is thinking on or off and its effort. */
export const deepSeekProvider = defineProvider<z.infer<typeof settings>>({
  settings,
  fields: sharedFieldDescriptions,
  endpoint: (config) => config.baseURL,
  create: (config, modelId, fetch) => ({ model: createDeepSeek({ apiKey: config.apiKey, ...connectionOptions(config), fetch })(modelId), optionsKey: 'deepseek' }),
  reasoning: (level): Record<string, JSONValue> => (level === 'none' ? { thinking: { type: 'disabled' } } : { thinking: { type: 'enabled' }, reasoningEffort: efforts[level] }),
});
