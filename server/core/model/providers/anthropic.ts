import { anthropic, createAnthropic } from '@ai-sdk/anthropic';
import { defineKeyedProvider } from './provider-definition.js';
import { reasoningBudgets } from './provider-fields.js';

/** Anthropic's Messages API through `@ai-sdk/anthropic`; reasoning is a thinking budget. */
export const anthropicProvider = defineKeyedProvider({
  client: createAnthropic,
  optionsKey: 'anthropic',
  reasoning: (level) => ({ thinking: level === 'none' ? { type: 'disabled' } : { type: 'enabled', budgetTokens: reasoningBudgets[level] } }),
  // The versions every current Claude model takes (the newer web search needs code execution beside it).
  tools: () => ({ betaSearch: () => anthropic.tools.webSearch_20250305({}), codeExecution: () => anthropic.tools.codeExecution_20250825({}) }),
});
