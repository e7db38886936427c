import type { Tool } from 'ai';
import { boundedJsonPreview, boundedJsonSize } from './bounded-json-size.js';

/**
 * Bound what one tool call hands the model: an output larger than `maxBytes` (as JSON) is
 * replaced by a structured error with a preview, so one huge page or log cannot flood the
 * context window or the stored conversation.
 */
export function withOutputLimit(name: string, original: Tool, maxBytes: number): Tool {
  const execute = original.execute;
  if (!execute) return original;
  return {
    ...original,
    execute: async (input: unknown, options: Parameters<NonNullable<Tool['execute']>>[1]) => {
      const output: unknown = await execute(input, options);
      // Measured by a walk that stops past the cap: never a JSON copy of an unbounded output.
      if (boundedJsonSize(output, maxBytes) <= maxBytes) return output;
      return {
        error: `${name} returned more than the limit of ${maxBytes} bytes for one tool output (measured as JSON); the output was cut.`,
        truncated: true,
        preview: boundedJsonPreview(output, Math.min(2000, maxBytes)),
      };
    },
  } as Tool;
}
