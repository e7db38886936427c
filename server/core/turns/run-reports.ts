import type { ModelMessage } from 'ai';
import type { PendingAsyncToolView } from '../async-tools/async-tool-result.js';
import type { TransportKind } from '../transports/transports.js';
import type { TokenUsage } from '../usage/token-usage.js';

/** Why a cancel request closed what a run waited on (stored on the row and on the async calls it closed). */
export const cancelledReason = 'cancelled by a cancel request';

/** The turn that starts waiting for external async tools, for a status row that may not exist yet. */
export interface WaitingTurn {
  eventId: string;
  accountId: string;
  agentId: string;
  conversationKey: string;
  transport: TransportKind;
  pendingAsyncTools: PendingAsyncToolView[];
  /** The tokens of this run of the turn so far, added to what the row already counts. */
  usage?: TokenUsage;
  /** This run's model calls, each on its own, appended to the row's. */
  usageByCall?: TokenUsage[];
}

/** A turn a cancel request stopped, for a status row that may not exist yet (an SSE or NATS turn has none until it waits). */
export interface CancelledTurn {
  eventId: string;
  accountId: string;
  agentId: string;
  conversationKey: string;
  transport: TransportKind;
  text: string;
  messages: ModelMessage[];
  /** The tokens of this run of the turn, added to what the row already counts. */
  usage?: TokenUsage;
  /** This run's model calls, each on its own, appended to the row's. */
  usageByCall?: TokenUsage[];
}

/**
 * What a running turn tells the run it belongs to, at the two moments the run's status row
 * must change before the turn's stream ends (a client that reads the `finish` finds the row):
 * it starts waiting for external async tools, or a cancel request stopped it. The run's
 * status row has one writer, `runs/status-row-transitions.ts`, which implements this; a turn
 * writes no run state itself.
 */
export interface RunReports {
  waitForAsyncTools(turn: WaitingTurn): Promise<void>;
  cancel(turn: CancelledTurn): Promise<boolean>;
}
