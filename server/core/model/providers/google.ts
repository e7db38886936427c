import { createGoogleGenerativeAI, google } from '@ai-sdk/google';
import { z } from 'zod';
import { defineProvider } from './provider-definition.js';
import { connectionOptions, keyedConnection, reasoningBudgets, sharedFieldDescriptions } from './provider-fields.js';

const settings = z.strictObject(keyedConnection);

/** Google's Gemini API (generateContent) through `@ai-sdk/google`; reasoning is a thinking budget, thoughts included. */
export const googleProvider = defineProvider<z.infer<typeof settings>>({
  settings,
  fields: sharedFieldDescriptions,
  endpoint: (config) => config.baseURL,
  create: (config, modelId, fetch) => ({ model: createGoogleGenerativeAI({ apiKey: config.apiKey, ...connectionOptions(config), fetch })(modelId), optionsKey: 'google' }),
  reasoning: (level) => ({ thinkingConfig: level === 'none' ? { thinkingBudget: 0, includeThoughts: false } : { thinkingBudget: reasoningBudgets[level], includeThoughts: true } }),
  tools: () => ({ betaSearch: () => google.tools.googleSearch({}), codeExecution: () => google.tools.codeExecution({}), urlContext: () => google.tools.urlContext({}) }),
});
