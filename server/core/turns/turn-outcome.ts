import type { ModelMessage, UIMessageChunk } from 'ai';
import type { PendingAsyncToolView } from '../async-tools/async-tool-result.js';
import { type ConversationState, pendingApprovals } from '../conversations/conversation.js';
import { sumUsage, type TokenUsage } from '../usage/token-usage.js';
import type { TurnStatus } from './turn-input.js';
import type { DeniedApproval, TurnResult } from './turn-types.js';

function textOf(messages: ModelMessage[]): string {
  return messages
    .filter((message) => message.role === 'assistant')
    .map((message) => (typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('')))
    .join('');
}

/** What a turn has gathered by its end, to build its result from. */
export interface TurnOutcome {
  turnId: string;
  eventId: string;
  conversationKey: string;
  state: ConversationState;
  /** The index of the turn's first message in `state.messages`. */
  firstNewMessage: number;
  waitingOn: PendingAsyncToolView[];
  denied: DeniedApproval[];
  failure?: TurnResult['error'];
  /** This run's model calls so far, each on its own (their sum is the run's usage); undefined before the first. */
  usageByCall?: TokenUsage[];
  /** The turn's validated structured output, once its last pass gave it. */
  output?: { value: unknown };
  /** The busy mode that applied when the turn's message met a running turn. */
  busy?: TurnResult['busy'];
}

/** The run's usage for its status row: the sum of its calls and the calls, or nothing before the first call. */
export function runUsage(outcome: TurnOutcome): Pick<TurnResult, 'usage' | 'usageByCall'> {
  return outcome.usageByCall ? { usage: sumUsage(outcome.usageByCall), usageByCall: outcome.usageByCall } : {};
}

export function turnResult(outcome: TurnOutcome, status: TurnStatus): TurnResult {
  // A summary marker written during the turn is not one of its messages (GET .../conversations/{key} shows it).
  const messages = outcome.state.messages.slice(outcome.firstNewMessage).filter((stored) => !stored.compaction).map((stored) => stored.message);
  return {
    turnId: outcome.turnId,
    eventId: outcome.eventId,
    conversationKey: outcome.conversationKey,
    status,
    text: textOf(messages),
    messages,
    pendingApprovals: pendingApprovals(outcome.state),
    pendingAsyncTools: status === 'waiting_async_tools' ? outcome.waitingOn : [],
    deniedApprovals: outcome.denied,
    usage: sumUsage(outcome.usageByCall ?? []),
    usageByCall: [...(outcome.usageByCall ?? [])],
    ...(outcome.failure ? { error: outcome.failure } : {}),
    ...(outcome.output && status === 'completed' ? { output: outcome.output } : {}),
    ...(outcome.busy ? { busy: outcome.busy } : {}),
  };
}

/**
 * The first chunk of every turn's stream. It names the turn and its event at once, so a client
 * can cancel the running turn (`POST /status/{eventId}/cancel`) before it ends.
 */
export function startChunk(turnId: string, eventId: string, messageId?: string): UIMessageChunk {
  return { type: 'start', ...(messageId ? { messageId } : {}), messageMetadata: { turnId, eventId } };
}

/** What a client reads on the `finish` chunk of a turn the daily token budget stopped. */
export const budgetExhaustedFinishReason = 'budget_exhausted';

/** The finish of a turn the budget stopped names it, with the error a refused turn gets (`rate_limited`, as NATS sends it). */
function budgetStop(result: TurnResult): Record<string, unknown> {
  if (result.error?.kind !== 'budget') return {};
  const { message, retryAfterSeconds } = result.error;
  return { finishReason: budgetExhaustedFinishReason, error: { code: 'rate_limited', message, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) } };
}

/** The last chunk of every turn's stream: its status and what it waits for. */
export function finishChunk(result: TurnResult): UIMessageChunk {
  return {
    type: 'finish',
    messageMetadata: {
      status: result.status,
      ...budgetStop(result),
      turnId: result.turnId,
      eventId: result.eventId,
      pendingApprovals: result.pendingApprovals,
      ...(result.pendingAsyncTools.length > 0 ? { pendingAsyncTools: result.pendingAsyncTools } : {}),
      ...(result.usage ? { usage: result.usage } : {}),
      ...(result.busy ? { busy: result.busy } : {}),
    },
  };
}
