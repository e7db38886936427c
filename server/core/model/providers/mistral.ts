import { createMistral } from '@ai-sdk/mistral';
import { defineKeyedProvider } from './provider-definition.js';

/** Mistral through `@ai-sdk/mistral`; its reasoning effort is only "none" or "high". */
export const mistralProvider = defineKeyedProvider({
  client: createMistral,
  optionsKey: 'mistral',
  reasoning: (level) => ({ reasoningEffort: level === 'none' ? 'none' : 'high' }),
});
