import type { UserModelMessage } from 'ai';
import type { BusyApplied, BusyMode } from '../agent-config/busy-mode.js';

/** The conversation a message is addressed to. */
export interface ConversationAddress {
  accountId: string;
  agentId: string;
  conversationKey: string;
}

/** A user message about to start a turn, and the busy mode that applies to it. */
export interface BusyRequest extends ConversationAddress {
  /** The event id the message's run will have. */
  eventId: string;
  mode: BusyMode;
  message: UserModelMessage;
}

/** What the message does: run a turn (taking its messages once it holds the conversation), or nothing, answered by another run. */
export type BusyTicket = RunTicket | HandedOverTicket;

export interface RunTicket {
  kind: 'run';
  /** Set when the message met a running turn. */
  applied?: BusyApplied;
  /**
   * Called once the turn holds the conversation: the user messages it answers, in arrival
   * order, or undefined when another run took the message meanwhile (a steer taken at a step
   * boundary, a collected message another turn answered): then no turn runs.
   */
  messages(): Promise<UserModelMessage[] | undefined>;
  /** The turn holds the conversation, or could not start: it no longer counts as waiting. */
  leaveLine(): void;
}

/** The message was collected: the run `applied.runEventId` (waiting for the conversation) answers it with the others. */
export interface HandedOverTicket {
  kind: 'handed-over';
  applied: BusyApplied;
}

/**
 * Where a user message meets the conversation's running turn (runs/busy-conversations.ts):
 * `admit` before the turn waits for its conversation, `running` once it holds it.
 */
export interface BusyGate {
  admit(request: BusyRequest): Promise<BusyTicket>;
  /** A turn of this process holds the conversation; returns the function to call when it lets go. */
  running(address: ConversationAddress, eventId: string): () => void;
}

/** Steering messages for a running turn, asked for and taken at its step boundaries. */
export interface Steering {
  steeringWaits(address: ConversationAddress): Promise<boolean>;
  takeSteering(address: ConversationAddress): Promise<UserModelMessage[]>;
}
