import type { UserModelMessage } from 'ai';
import { conversationLockKey } from '../coordination/conversation-locks.js';
import type { RunningTurns } from '../coordination/running-turns.js';
import { ConversationBusyError, RateLimitedError } from '../errors.js';
import type { BusyApplied, BusyMode } from '../agent-config/busy-mode.js';
import type { BusyGate, BusyRequest, BusyTicket, ConversationAddress, RunTicket, Steering } from '../turns/busy-gate.js';
import type { ConversationInbox } from './conversation-inbox.js';

export interface BusyConversationsOptions {
  runningTurns: RunningTurns;
  inbox: ConversationInbox;
  /** Messages of one conversation waiting for its running turn in this process (`queue`, `steer`); past it, 429. */
  maxWaitingPerConversation: number;
}

/** The conversation alone (a cancel target that names an `eventId` would name that event instead). */
function conversationOf(address: ConversationAddress): ConversationAddress {
  return { accountId: address.accountId, agentId: address.agentId, conversationKey: address.conversationKey };
}

function keyOf(address: ConversationAddress): string {
  return conversationLockKey(address.accountId, address.agentId, address.conversationKey);
}

/**
 * Decides what a user message does when its conversation has a turn running (see
 * `busy-mode.ts`). The running turn is looked up in the running-turn registry, which every
 * replica shares; collected and steering messages wait in the conversation's inbox, which
 * every replica shares too. `queue` asks neither: it waits for the conversation's lock like
 * any turn, so it costs no round trip.
 */
export class BusyConversations implements BusyGate, Steering {
  /** Messages waiting for the conversation in this process, per conversation. */
  private readonly waiting = new Map<string, number>();
  /** The event of the turn running in this process, per conversation (what a `queue` message names, at no cost). */
  private readonly runningHere = new Map<string, string>();

  constructor(private readonly options: BusyConversationsOptions) {}

  async admit(request: BusyRequest): Promise<BusyTicket> {
    const own = [request.message];
    if (request.mode === 'queue') {
      const runningHere = this.runningHere.get(keyOf(request));
      return this.waitInLine(request, runningHere ? { mode: 'queue', runEventId: runningHere } : undefined, async () => own);
    }
    const runningEventId = await this.runningEventId(request);
    if (request.mode === 'collect') return this.collect(request, runningEventId);
    if (runningEventId === undefined) return this.waitInLine(request, undefined, async () => own);
    const applied: BusyApplied = { mode: request.mode, runEventId: runningEventId };
    switch (request.mode) {
      case 'reject':
        throw new ConversationBusyError(request.conversationKey, runningEventId);
      case 'interrupt':
        await this.options.runningTurns.requestCancel(conversationOf(request));
        return this.waitInLine(request, applied, async () => own);
      case 'steer':
        return this.steer(request, applied);
    }
  }

  /**
   * A collected message waits in the inbox. The first one while a turn runs brings the next
   * turn, which takes every collected message when it starts; the others are answered by it.
   * With no turn running the message runs at once, taking any collected message a turn that
   * never started (its process died) left behind.
   */
  private async collect(request: BusyRequest, runningEventId: string | undefined): Promise<BusyTicket> {
    const { inbox } = this.options;
    const collected = (entry: { mode: string }) => entry.mode === 'collect';
    if (runningEventId === undefined) {
      return this.waitInLine(request, undefined, async () => [...(await inbox.take(request, collected)).map((entry) => entry.message), request.message]);
    }
    const { firstEventId } = await inbox.add(request, { mode: 'collect', eventId: request.eventId, message: request.message, createdAt: new Date().toISOString() });
    // The run that answers it is the one the first collected message brings.
    if (firstEventId !== request.eventId) return { kind: 'handed-over', applied: { mode: 'collect', runEventId: firstEventId } };
    return this.waitInLine(request, { mode: 'collect', runEventId: request.eventId }, async () => {
      const messages = (await inbox.take(request, collected)).map((entry) => entry.message);
      return messages.length > 0 ? messages : undefined;
    });
  }

  /**
   * A steering message waits in the inbox for the running turn's next step boundary. It also
   * waits for the conversation, as `queue`: when it gets it and the message is still in the
   * inbox (the running turn had no boundary left), it runs its own turn.
   */
  private async steer(request: BusyRequest, applied: BusyApplied): Promise<BusyTicket> {
    const { inbox } = this.options;
    let entryId: string | undefined;
    // In line first: a message past the bound is refused before it reaches the inbox.
    const ticket = this.waitInLine(request, applied, async () => {
      const [own] = await inbox.take(request, (entry) => entry.entryId === entryId);
      return own ? [own.message] : undefined;
    });
    try {
      ({ entryId } = await inbox.add(request, { mode: 'steer', eventId: request.eventId, message: request.message, createdAt: new Date().toISOString() }));
    } catch (error) {
      ticket.leaveLine();
      throw error;
    }
    return ticket;
  }

  /**
   * Refuses (409 `conversation_busy`) a message whose mode is `reject` while a turn runs on its
   * conversation: what `/async` answers before it queues anything. Other modes pass.
   */
  async refuseWhenBusy(address: ConversationAddress, mode: BusyMode): Promise<void> {
    if (mode !== 'reject') return;
    const runningEventId = await this.runningEventId(address);
    if (runningEventId !== undefined) throw new ConversationBusyError(address.conversationKey, runningEventId);
  }

  /**
   * The event of the turn that holds the conversation: one of this process, known from the
   * moment it took the conversation, or one the shared registry knows, on any replica.
   */
  private async runningEventId(address: ConversationAddress): Promise<string | undefined> {
    return this.runningHere.get(keyOf(address)) ?? (await this.options.runningTurns.findRunning(conversationOf(address)))?.eventId;
  }

  /** Whether a steering message waits for the running turn of `address` (asked at its step boundaries). */
  steeringWaits(address: ConversationAddress): Promise<boolean> {
    return this.options.inbox.holds(address, (entry) => entry.mode === 'steer');
  }

  /** Takes the steering messages waiting for the running turn of `address`, in arrival order. */
  async takeSteering(address: ConversationAddress): Promise<UserModelMessage[]> {
    return (await this.options.inbox.take(address, (entry) => entry.mode === 'steer')).map((entry) => entry.message);
  }

  /** A turn of this process holds the conversation; returns the function to call when it lets go. */
  running(address: ConversationAddress, eventId: string): () => void {
    const key = keyOf(address);
    this.runningHere.set(key, eventId);
    return () => {
      if (this.runningHere.get(key) === eventId) this.runningHere.delete(key);
    };
  }

  private waitInLine(request: BusyRequest, applied: BusyApplied | undefined, messages: () => Promise<UserModelMessage[] | undefined>): RunTicket {
    const key = keyOf(request);
    const waiting = this.waiting.get(key) ?? 0;
    if (waiting >= this.options.maxWaitingPerConversation) {
      throw new RateLimitedError(`Conversation "${request.conversationKey}" already has ${waiting} messages waiting for its running turn; the limit is ${this.options.maxWaitingPerConversation}.`, 1);
    }
    this.waiting.set(key, waiting + 1);
    let left = false;
    return {
      kind: 'run',
      ...(applied ? { applied } : {}),
      messages,
      leaveLine: () => {
        if (left) return;
        left = true;
        const now = (this.waiting.get(key) ?? 1) - 1;
        if (now <= 0) this.waiting.delete(key);
        else this.waiting.set(key, now);
      },
    };
  }
}
