import { randomUUID } from 'node:crypto';
import type { AccountStatusCheck } from '../accounts/account-status.js';
import type { Agents } from '../agents/agents.js';
import { NotFoundError } from '../errors.js';
import type { TransportKind } from '../tools/tool-context.js';
import type { TurnInput } from '../turns/turn-input.js';
import type { AsyncWorker } from './async-worker.js';
import type { EventRecord, EventStatus, PendingAsyncToolView } from './event.js';
import type { EventsRepository } from './events-repository.js';

export interface EventView {
  eventId: string;
  status: EventStatus;
  conversationKey: string;
  result?: EventRecord['result'];
  error?: string;
  pendingApprovals?: EventRecord['pendingApprovals'];
  pendingAsyncTools?: PendingAsyncToolView[];
  createdAt: string;
  updatedAt: string;
}

/** `POST /agents/{agentId}/async` and `GET /status/{eventId}`: durable requests run by the worker. */
export class AsyncRequests {
  constructor(
    private readonly agents: Agents,
    private readonly events: EventsRepository,
    private readonly worker: AsyncWorker,
    private readonly now: () => Date = () => new Date(),
    /** Refuses a disabled account before anything is queued (cron fires meet it here). */
    private readonly accountCheck?: AccountStatusCheck,
  ) {}

  /** Stores the request as `queued` (durable before the 202), then hands it to the worker. */
  /**
   * `eventId` may be chosen by the caller (a cron fire picks it when claiming its slot); a
   * second submit with it throws `ConditionFailedError` and starts nothing.
   */
  async submit(request: { accountId: string; agentId: string; conversationKey: string; input: TurnInput; transport?: TransportKind; eventId?: string }): Promise<{ eventId: string }> {
    await this.accountCheck?.(request.accountId);
    await this.agents.load(request.accountId, request.agentId);
    const eventId = request.eventId ?? `evt_${randomUUID()}`;
    const timestamp = this.now().toISOString();
    await this.events.create({
      eventId,
      accountId: request.accountId,
      agentId: request.agentId,
      conversationKey: request.conversationKey,
      transport: request.transport ?? 'async',
      status: 'queued',
      input: request.input,
      createdAt: timestamp,
      updatedAt: timestamp,
    });
    this.worker.enqueueEvent(eventId);
    return { eventId };
  }

  async status(accountId: string, eventId: string): Promise<EventView> {
    const event = /^evt_[A-Za-z0-9_-]{1,80}$/.test(eventId) ? await this.events.get(eventId) : undefined;
    if (!event || event.accountId !== accountId) throw new NotFoundError(`No event ${eventId}.`);
    return {
      eventId: event.eventId,
      status: event.status,
      conversationKey: event.conversationKey,
      ...(event.result ? { result: event.result } : {}),
      ...(event.error ? { error: event.error } : {}),
      ...(event.pendingApprovals && event.pendingApprovals.length > 0 ? { pendingApprovals: event.pendingApprovals } : {}),
      ...(event.pendingAsyncTools && event.pendingAsyncTools.length > 0 ? { pendingAsyncTools: event.pendingAsyncTools } : {}),
      createdAt: event.createdAt,
      updatedAt: event.updatedAt,
    };
  }
}
