import { anthropic, createAnthropic } from '@ai-sdk/anthropic';
import { z } from 'zod';
import { defineProvider } from './provider-definition.js';
import { connectionOptions, keyedConnection, reasoningBudgets, sharedFieldDescriptions } from './provider-fields.js';

const settings = z.strictObject(keyedConnection);

/** Anthropic's Messages API through `@ai-sdk/anthropic`; reasoning is a thinking budget. */
export const anthropicProvider = defineProvider<z.infer<typeof settings>>({
  settings,
  fields: sharedFieldDescriptions,
  endpoint: (config) => config.baseURL,
  create: (config, modelId, fetch) => ({ model: createAnthropic({ apiKey: config.apiKey, ...connectionOptions(config), fetch })(modelId), optionsKey: 'anthropic' }),
  reasoning: (level) => ({ thinking: level === 'none' ? { type: 'disabled' } : { type: 'enabled', budgetTokens: reasoningBudgets[level] } }),
  // The versions every current Claude model takes (the newer web search needs code execution beside it).
  tools: () => ({ betaSearch: () => anthropic.tools.webSearch_20250305({}), codeExecution: () => anthropic.tools.codeExecution_20250825({}) }),
});
