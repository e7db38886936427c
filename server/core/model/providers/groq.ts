import { createGroq } from '@ai-sdk/groq';
import type { JSONValue } from 'ai';
import { defineKeyedProvider } from './provider-definition.js';

/** Groq through `@ai-sdk/groq`; reasoning is its effort, the reasoning text parsed out. */
export const groqProvider = defineKeyedProvider({
  client: createGroq,
  optionsKey: 'groq',
  reasoning: (level): Record<string, JSONValue> => (level === 'none' ? { reasoningEffort: 'none' } : { reasoningEffort: level, reasoningFormat: 'parsed' }),
});
