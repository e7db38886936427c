import type { Tool } from 'ai';
import type { Logger } from '../logger.js';
import { runInSpan } from '../telemetry/spans.js';
import { OutsideServiceError } from './search-service.js';
import { endToolSpan, failToolSpan, startToolSpan } from './tool-span.js';

export interface ToolLogContext {
  accountId: string;
  agentId: string;
  turnId: string;
}

/**
 * Every tool's start, finish, duration and failure is logged. Log lines
 * carry ids, the tool name, the duration and a status code: never inputs or outputs, which
 * may hold anything.
 */
export function withToolLogging(name: string, original: Tool, logger: Logger, context: ToolLogContext): Tool {
  const execute = original.execute;
  if (!execute) return original;
  return {
    ...original,
    execute: async (input: unknown, options: Parameters<NonNullable<Tool['execute']>>[1]) => {
      const started = performance.now();
      const fields = { event: 'tool', tool: name, toolCallId: options.toolCallId, ...context };
      logger.info({ ...fields, phase: 'start' }, `tool ${name} started`);
      const span = startToolSpan(name, options.toolCallId);
      try {
        const output: unknown = await runInSpan(span, () => execute(input, options));
        logger.info({ ...fields, phase: 'finish', durationMs: Math.round(performance.now() - started) }, `tool ${name} finished`);
        endToolSpan(span, output);
        return output;
      } catch (error) {
        failToolSpan(span, error);
        const status = error instanceof OutsideServiceError ? error.status : undefined;
        logger.warn(
          { ...fields, phase: 'failure', durationMs: Math.round(performance.now() - started), status, error: (error as Error).message },
          `tool ${name} failed`,
        );
        throw error;
      }
    },
  } as Tool;
}
