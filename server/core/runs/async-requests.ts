import { randomUUID } from 'node:crypto';
import type { AccountStatusCheck } from '../accounts/account-status.js';
import type { Agents } from '../agents/agents.js';
import type { AsyncRequestJob } from './background-job.js';
import { NotFoundError } from '../errors.js';
import type { BusyConversations } from './busy-conversations.js';
import { type BusyApplied, type BusyMode, defaultBusyMode } from '../agent-config/busy-mode.js';
import { traceparentField } from '../telemetry/traceparent.js';
import type { TransportKind } from '../transports/transports.js';
import type { TurnInput } from '../turns/turn-input.js';
import type { TurnOverrides } from '../agent-config/run-overrides.js';
import { noUsage, type TokenUsage } from '../usage/token-usage.js';
import type { AsyncRequestRecord, AsyncRequestStatus, PendingAsyncToolView } from './status-row.js';
import type { AsyncRequestTransitions } from './status-row-transitions.js';
import type { AsyncRequestsRepository } from './status-rows-repository.js';

export interface AsyncRequestView {
  eventId: string;
  status: AsyncRequestStatus;
  conversationKey: string;
  result?: AsyncRequestRecord['result'];
  error?: string;
  /** The busy mode that applied when the request's message met a running turn, and the run it met or was handed to. */
  busy?: BusyApplied;
  /** The turn's validated structured output (`config.model.output` or the request's `output`), once completed. */
  output?: unknown;
  pendingApprovals?: AsyncRequestRecord['pendingApprovals'];
  pendingAsyncTools?: PendingAsyncToolView[];
  /** Tokens of the turn's model calls so far (zeros before the first call ends). */
  usage: TokenUsage;
  /** The same model calls each on its own, in order (empty before the first call ends). */
  usageByCall: TokenUsage[];
  createdAt: string;
  updatedAt: string;
}

export interface AsyncRequestsOptions {
  agents: Agents;
  repository: AsyncRequestsRepository;
  transitions: AsyncRequestTransitions;
  /** Where a stored request goes to be run (the background worker's queue). */
  enqueue: (job: AsyncRequestJob) => void;
  /** Refuses a disabled account before anything is queued (cron fires meet it here). */
  accountCheck?: AccountStatusCheck;
  /** Refuses a `reject` message while a turn runs on its conversation, before anything is queued. */
  busy?: Pick<BusyConversations, 'refuseWhenBusy'>;
}

/** `POST /agents/{agentId}/async` and `GET /status/{eventId}`: durable requests run in the background. */
export class AsyncRequests {
  constructor(private readonly options: AsyncRequestsOptions) {}

  /**
   * Stores the request as `queued` (durable before the 202), then queues its job. `eventId`
   * may be chosen by the caller (a cron fire picks it when claiming its slot); a second submit
   * with it throws `ConditionFailedError` and starts nothing.
   */
  async submit(request: { accountId: string; agentId: string; conversationKey: string; input: TurnInput; overrides?: TurnOverrides; busy?: BusyMode; transport?: TransportKind; eventId?: string }): Promise<{ eventId: string }> {
    await this.options.accountCheck?.(request.accountId);
    const agent = await this.options.agents.load(request.accountId, request.agentId);
    if (request.input.kind === 'user') await this.options.busy?.refuseWhenBusy(request, request.busy ?? agent.config.busy ?? defaultBusyMode(request.transport ?? 'async'));
    const eventId = request.eventId ?? `evt_${randomUUID()}`;
    await this.options.transitions.queue({
      eventId,
      accountId: request.accountId,
      agentId: request.agentId,
      conversationKey: request.conversationKey,
      transport: request.transport ?? 'async',
      input: request.input,
      ...(request.overrides ? { overrides: request.overrides } : {}),
      ...(request.busy ? { busyMode: request.busy } : {}),
      ...traceparentField(),
    });
    this.options.enqueue({ kind: 'async-request', eventId });
    return { eventId };
  }

  /** The row of one of the account's requests, or undefined. */
  async find(accountId: string, eventId: string): Promise<AsyncRequestRecord | undefined> {
    const request = /^evt_[A-Za-z0-9_-]{1,80}$/.test(eventId) ? await this.options.repository.get(eventId) : undefined;
    return request?.accountId === accountId ? request : undefined;
  }

  async status(accountId: string, eventId: string): Promise<AsyncRequestView> {
    const request = await this.find(accountId, eventId);
    if (!request) throw new NotFoundError(`No event ${eventId}.`);
    return viewAsyncRequest(request);
  }
}

/** The `/status/{eventId}` view of a row: what `GET /status` answers and what a completion webhook POSTs. */
export function viewAsyncRequest(request: AsyncRequestRecord): AsyncRequestView {
  return {
    eventId: request.eventId,
    status: request.status,
    conversationKey: request.conversationKey,
    usage: request.usage ?? { ...noUsage },
    usageByCall: request.usageByCall ?? [],
    // The order the status route's serializer writes (its required fields first), so a webhook's body is the /status view byte for byte.
    createdAt: request.createdAt,
    updatedAt: request.updatedAt,
    ...(request.result ? { result: request.result } : {}),
    ...(request.error ? { error: request.error } : {}),
    ...(request.busy ? { busy: request.busy } : {}),
    ...('output' in request ? { output: request.output } : {}),
    ...(request.pendingApprovals && request.pendingApprovals.length > 0 ? { pendingApprovals: request.pendingApprovals } : {}),
    ...(request.pendingAsyncTools && request.pendingAsyncTools.length > 0 ? { pendingAsyncTools: request.pendingAsyncTools } : {}),
  };
}
