import { setTimeout as sleep } from 'node:timers/promises';
import { tool } from 'ai';
import { z } from 'zod';
import type { ToolFactory } from './tool-factory.js';

/** A local example tool: waits `durationMs` (option, default 1000) and returns structured data. */
export const testAsyncFactory: ToolFactory = (toolConfig) => {
  const durationMs = typeof toolConfig.durationMs === 'number' ? toolConfig.durationMs : 1000;
  return {
    test_async: tool({
      description: 'An example long-running task. Returns when it is done.',
      inputSchema: z.object({ label: z.string().optional().describe('A label to echo back') }),
      execute: async ({ label }, { abortSignal }) => {
        const startedAt = new Date();
        await sleep(durationMs, undefined, { signal: abortSignal });
        return { label: label ?? null, waitedMs: durationMs, startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString() };
      },
    }),
  };
};
