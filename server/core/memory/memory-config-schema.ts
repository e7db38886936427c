import { z } from 'zod';
import { parseOrThrow, requireObject } from '../config-parsing/config-section-parsing.js';

/** Whose notes a turn reads and writes (docs/memory.md). */
export const memoryScopes = ['conversation', 'user', 'agent'] as const;
export type MemoryScope = (typeof memoryScopes)[number];

const memoryConfigSchema = z.strictObject({
  enabled: z.boolean({ error: 'must be a boolean' }).default(true),
  scope: z.enum(memoryScopes, { error: `must be one of ${memoryScopes.join(', ')}` }).default('conversation'),
});

/**
 * `config.memory`: the `memory_save` / `memory_search` / `memory_forget` tools and the notes
 * given to the model with each turn. `enabled` defaults to true (the key's presence asks for
 * memory), `scope` to `conversation`.
 */
export type MemoryConfig = z.infer<typeof memoryConfigSchema>;

/** Validate `config.memory`; the error names the offending path. Run when a config is written and when tools are built. */
export function validateMemoryConfig(value: unknown): MemoryConfig {
  return parseOrThrow(memoryConfigSchema, requireObject(value, 'config.memory', '{enabled?, scope?}'), 'config.memory');
}

/** The agent's memory config when memory is on; undefined when the key is absent or `enabled` is false. */
export function enabledMemory(value: unknown): MemoryConfig | undefined {
  if (value === undefined) return undefined;
  const config = validateMemoryConfig(value);
  return config.enabled ? config : undefined;
}
