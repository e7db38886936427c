import type { AssistantModelMessage, ToolModelMessage } from 'ai';
import type { AsyncOutcome } from '../async-tools/async-settlement.js';

/** The synthetic tool through which settled async results reach the model. */
export const asyncResultToolName = 'async_tool_result';

export interface SettledAsyncCall {
  resultId: string;
  toolCallId: string;
  toolName: string;
  outcome: AsyncOutcome;
}

export function syntheticCallId(resultId: string): string {
  return `async-${resultId}`;
}

/**
 * How a settled async result reaches the model (our documented choice): as the result of a
 * synthetic `async_tool_result` call in the history, one per settled row, so the model reads
 * it where it reads all tool output. The original call's result stays
 * `{resultId, status: "processing"}`; this pair says how it ended.
 */
export function asyncResultsMessages(calls: SettledAsyncCall[]): [AssistantModelMessage, ToolModelMessage] {
  return [
    {
      role: 'assistant',
      content: calls.map((call) => ({
        type: 'tool-call' as const,
        toolCallId: syntheticCallId(call.resultId),
        toolName: asyncResultToolName,
        input: { resultId: call.resultId, toolName: call.toolName, toolCallId: call.toolCallId },
      })),
    },
    {
      role: 'tool',
      content: calls.map((call) => ({
        type: 'tool-result' as const,
        toolCallId: syntheticCallId(call.resultId),
        toolName: asyncResultToolName,
        output: {
          type: 'json' as const,
          value: {
            resultId: call.resultId,
            toolName: call.toolName,
            status: call.outcome.status,
            ...(call.outcome.status === 'completed' ? { response: call.outcome.response } : { error: call.outcome.error }),
          } as never,
        },
      })),
    },
  ];
}

/** The UI chunk that announces a settled async call. */
export function asyncSettledChunk(call: SettledAsyncCall) {
  return {
    type: 'data-async-tool-settled' as const,
    data: {
      resultId: call.resultId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      status: call.outcome.status,
      ...(call.outcome.status === 'completed' ? { response: call.outcome.response } : { error: call.outcome.error }),
    },
  };
}
