import { createGoogleGenerativeAI, google } from '@ai-sdk/google';
import { defineKeyedProvider } from './provider-definition.js';
import { reasoningBudgets } from './provider-fields.js';

/** Google's Gemini API (generateContent) through `@ai-sdk/google`; reasoning is a thinking budget, thoughts included. */
export const googleProvider = defineKeyedProvider({
  client: createGoogleGenerativeAI,
  optionsKey: 'google',
  reasoning: (level) => ({ thinkingConfig: level === 'none' ? { thinkingBudget: 0, includeThoughts: false } : { thinkingBudget: reasoningBudgets[level], includeThoughts: true } }),
  tools: () => ({ betaSearch: () => google.tools.googleSearch({}), codeExecution: () => google.tools.codeExecution({}), urlContext: () => google.tools.urlContext({}) }),
});
