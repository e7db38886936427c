import { createXai, xaiTools } from '@ai-sdk/xai';
import { defineKeyedProvider } from './provider-definition.js';

/** xAI through `@ai-sdk/xai` (5.x speaks xAI's Responses API, `POST {baseURL}/responses`); reasoning is its effort. */
export const xaiProvider = defineKeyedProvider({
  client: createXai,
  optionsKey: 'xai',
  reasoning: (level) => ({ reasoningEffort: level }),
  tools: () => ({ betaSearch: () => xaiTools.webSearch({}), codeExecution: () => xaiTools.codeExecution({}) }),
});
