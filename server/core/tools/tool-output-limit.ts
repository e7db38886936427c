import type { Tool } from 'ai';

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
      const serialized = JSON.stringify(output) ?? '';
      const bytes = Buffer.byteLength(serialized);
      if (bytes <= maxBytes) return output;
      return {
        error: `${name} returned ${bytes} bytes, more than the limit of ${maxBytes} bytes for one tool output; the output was cut.`,
        truncated: true,
        preview: serialized.slice(0, Math.min(2000, maxBytes)),
      };
    },
  } as Tool;
}
