import { tool } from 'ai';
import { z } from 'zod';
import { OutboundDestinationRefusedError } from '../outbound/outbound-policy.js';
import type { AsyncToolOptions } from './async-tool-options.js';
import { OutsideServiceError } from './search-service.js';
import type { ToolFactory } from './tool-factory.js';

export const defaultWorkerUrl = 'http://127.0.0.1:4300/dispatch';

/**
 * The external-dispatch example: `execute` only hands the work to a worker and returns at
 * once; the worker later POSTs the outcome to `completeUrl` with the bearer it was given,
 * which settles the async row and lets the turn continue.
 */
export const testExternalAsyncFactory: ToolFactory = (toolConfig, context) => {
  const completionBaseUrl = String(toolConfig.completionBaseUrl ?? '');
  const completionBearerToken = String(toolConfig.completionBearerToken ?? '');
  const accountChosen = typeof toolConfig.workerUrl === 'string';
  const workerUrl = typeof toolConfig.workerUrl === 'string' ? toolConfig.workerUrl : (context.environment.mockWorkerUrl ?? defaultWorkerUrl);
  // The account's own workerUrl goes through the outbound policy; the operator's default does not.
  const dispatchFetch = accountChosen ? (context.outboundFetch ?? context.fetch) : context.fetch;
  return {
    test_external_async: tool({
      description: 'Hands a task to an external worker. The result arrives later, after this turn.',
      inputSchema: z.object({ task: z.string().optional().describe('What the worker should do') }),
      execute: async (input, options) => {
        const asyncTool = (options as { asyncTool?: AsyncToolOptions }).asyncTool;
        if (!asyncTool) {
          throw new Error('test_external_async must run with async: true and execution: "external-dispatch" (it only dispatches work)');
        }
        const completeUrl = new URL(asyncTool.completePath, completionBaseUrl.endsWith('/') ? completionBaseUrl : `${completionBaseUrl}/`).toString();
        const response = await dispatchFetch(workerUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            resultId: asyncTool.resultId,
            toolCallId: options.toolCallId,
            toolName: 'test_external_async',
            input,
            completeUrl,
            completionHeaders: { Authorization: `Bearer ${completionBearerToken}` },
          }),
          signal: AbortSignal.timeout(10_000),
        }).catch((error: unknown) => {
          // A refusal by the outbound policy says why; other network errors stay as fetch reports them.
          const cause = (error as { cause?: unknown }).cause;
          throw cause instanceof OutboundDestinationRefusedError ? new Error(`test_external_async: ${cause.message}`) : error;
        });
        if (!response.ok) throw new OutsideServiceError('test_external_async', response.status, response.statusText);
        await response.body?.cancel();
        return { resultId: asyncTool.resultId, status: 'processing' as const, dispatched: true };
      },
    }),
  };
};
