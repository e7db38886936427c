import { createXai, xaiTools } from '@ai-sdk/xai';
import { z } from 'zod';
import { defineProvider } from './provider-definition.js';
import { connectionOptions, keyedConnection, sharedFieldDescriptions } from './provider-fields.js';

const settings = z.strictObject(keyedConnection);

/** xAI through `@ai-sdk/xai` (5.x speaks xAI's Responses API, `POST {baseURL}/responses`); reasoning is its effort. */
export const xaiProvider = defineProvider<z.infer<typeof settings>>({
  settings,
  fields: sharedFieldDescriptions,
  endpoint: (config) => config.baseURL,
  create: (config, modelId, fetch) => ({ model: createXai({ apiKey: config.apiKey, ...connectionOptions(config), fetch })(modelId), optionsKey: 'xai' }),
  reasoning: (level) => ({ reasoningEffort: level }),
  tools: () => ({ betaSearch: () => xaiTools.webSearch({}), codeExecution: () => xaiTools.codeExecution({}) }),
});
