import { AccountDisabledError } from '../accounts/account-status.js';
import { type AsyncRequestRecord, type AsyncRequestStatus, isFinalStatus } from '../runs/status-row.js';
import { inMemoryJobQueues } from '../coordination/bounded-job-queue.js';
import type { JobQueue, JobQueueFactory } from '../coordination/job-queue.js';
import { NotFoundError } from '../errors.js';
import type { Logger } from '../logger.js';
import { DestinationBackoff } from './destination-backoff.js';
import { FairDeliveryScheduler } from './fair-delivery-scheduler.js';
import { PendingDeliverySweeps } from './pending-delivery-sweeps.js';
import { isDelivered, isRetryable, nextStep } from './retry-schedule.js';
import type { WebhookDeliveriesRepository } from './webhook-deliveries-repository.js';
import { type WebhookAttempt, type WebhookDelivery, type WebhookDeliveryRef, type WebhookDeliveryView, viewWebhookDelivery, webhookDeliveryId } from './webhook-delivery.js';
import { postWebhook } from './webhook-sender.js';
import { webhookTarget, type WebhookTargetSources } from './webhook-target.js';
import type { WebhookSettings } from './webhook-settings.js';

/** Run the next attempt of a delivery (if it is due and nobody else runs it). */
export interface WebhookDeliveryJob extends WebhookDeliveryRef {
  kind: 'webhook-delivery';
}

export interface CompletionWebhooksOptions extends WebhookTargetSources {
  repository: WebhookDeliveriesRepository;
  settings: WebhookSettings;
  logger: Logger;
  now: () => Date;
  /** The outbound policy's fetch (default: the global one). */
  fetch?: typeof fetch;
  /** Where deliveries wait (default: in memory). */
  queues?: JobQueueFactory;
  /** Replicas share the queue: sweep for due deliveries whose retry timer died with its replica. */
  shared?: boolean;
  random?: () => number;
}

/**
 * A row's finishes that are announced: `completed`, `failed` and `cancelled`, and `awaiting_approval`,
 * where the turn stopped and nothing moves the row on (the approval is answered by a new
 * request). Each is announced once.
 */
export function isAnnouncedStatus(status: AsyncRequestStatus): boolean {
  return isFinalStatus(status) || status === 'awaiting_approval';
}

/** How long a claimed attempt is presumed alive: its timeout and a margin for storage. */
const claimMarginMs = 30_000;

/**
 * Completion webhooks: when a status row (an `/async` request, a cron run, a turn that waited
 * for async tools and its continuation) reaches a finish, the writer of that transition
 * records one delivery (a conditional create keyed by the row and its status) and queues its
 * job; the job POSTs the row's `/status` view, signed, and retries with backoff. The attempts
 * are paced fairly across accounts (`FairDeliveryScheduler`), and a receiver that fails is left
 * alone for a while (`DestinationBackoff`). See docs/webhooks.md.
 */
export class CompletionWebhooks {
  /** Where a delivery's job goes first: on replicas, the shared queue hands it to one of them. */
  private readonly queue: JobQueue<WebhookDeliveryJob>;
  /** The attempts of this process: per-account queues and shares of the slots, retries waiting on timers. */
  private readonly scheduler: FairDeliveryScheduler<WebhookDeliveryJob>;
  private readonly destinations: DestinationBackoff;
  private readonly announcing = new Set<Promise<void>>();
  /** Ends the attempts under way when the service stops (their deliveries stay pending). */
  private readonly stopping = new AbortController();
  private readonly sweeps: PendingDeliverySweeps;
  private stopped = false;

  constructor(private readonly options: CompletionWebhooksOptions) {
    const { settings } = options;
    const keyOf = (job: WebhookDeliveryRef) => `webhook-delivery:${JSON.stringify([job.accountId, job.agentId, job.deliveryId])}`;
    this.scheduler = new FairDeliveryScheduler<WebhookDeliveryJob>({
      run: (job) => this.run(job),
      concurrency: settings.concurrency,
      concurrencyPerAccount: settings.concurrencyPerAccount,
      heldPerAccount: settings.queuePerAccount,
      accountOf: (job) => job.accountId,
      keyOf,
      onRoom: (accountId) => this.refill(accountId),
    });
    this.sweeps = new PendingDeliverySweeps({ shared: options.shared ?? false, sweepMs: settings.sweepMs, sweep: () => this.recover(), logger: options.logger });
    this.destinations = new DestinationBackoff({ baseMs: settings.destinationBackoffMs, maxMs: settings.destinationBackoffMaxMs }, () => options.now().getTime());
    // The queue only hands jobs over (the scheduler paces them), so a handler never holds its slot for an attempt.
    this.queue = (options.queues ?? inMemoryJobQueues)(async (job: WebhookDeliveryJob) => void this.scheduler.offer(job), settings.concurrency, { name: 'webhook-deliveries', keyOf });
  }

  /**
   * The listener of every status transition, called by the writer whose conditional write
   * made it (so once per transition, on one replica): a finish is recorded and queued.
   */
  statusChanged(row: AsyncRequestRecord): void {
    if (this.stopped || !isAnnouncedStatus(row.status)) return;
    const announced = this.announce(row).catch((error: unknown) =>
      this.options.logger.error({ event: 'completion-webhook', eventId: row.eventId, error: (error as Error).message }, 'could not record a completion webhook'),
    );
    this.announcing.add(announced);
    void announced.finally(() => this.announcing.delete(announced));
  }

  /** An agent's deliveries, newest first (404 for an agent the account does not have). */
  async list(accountId: string, agentId: string, limit: number): Promise<WebhookDeliveryView[]> {
    await this.options.agents.load(accountId, agentId);
    return (await this.options.repository.listForAgent(accountId, agentId, limit)).map(viewWebhookDelivery);
  }

  /** Queue the pending deliveries (boot), then, on replicas, look again every `sweepMs`. */
  async start(): Promise<void> {
    await this.recover();
    this.sweeps.start();
  }

  /** Every pending delivery: queued when due, else a timer for when it is. Returns how many were found. */
  async recover(): Promise<number> {
    const pending = await this.options.repository.pending();
    const now = this.options.now().getTime();
    for (const delivery of pending) {
      const due = delivery.nextAttemptAt ? Date.parse(delivery.nextAttemptAt) : now;
      if (due <= now) this.enqueue(delivery);
      else this.retryAt(delivery, due - now);
    }
    return pending.length;
  }

  /**
   * Resolves when nothing is being recorded, queued, read back from storage or attempted (tests, shutdown); waiting
   * retries do not count. The scheduler is asked last: its refills are part of its idleness, so no attempt starts after.
   */
  async idle(): Promise<void> {
    do {
      while (this.announcing.size > 0) await Promise.allSettled([...this.announcing]);
      await this.queue.idle();
      await this.scheduler.idle();
    } while (this.announcing.size > 0);
  }

  /** Deliveries of an account this process holds in memory (tests). */
  heldBy(accountId: string): number {
    return this.scheduler.heldBy(accountId);
  }

  /** Take no new work and wait for attempts under way; pending deliveries stay in storage for the next start (or another replica). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.sweeps.stop();
    this.stopping.abort();
    await Promise.allSettled([...this.announcing]);
    await this.queue.stop();
    await this.scheduler.stop();
  }

  private async announce(row: AsyncRequestRecord): Promise<void> {
    const { logger } = this.options;
    const fields = { event: 'completion-webhook', accountId: row.accountId, agentId: row.agentId, eventId: row.eventId, status: row.status };
    try {
      await this.options.accountCheck(row.accountId);
    } catch (error) {
      // A disabled account does nothing: its finishes are not announced.
      if (error instanceof AccountDisabledError || error instanceof NotFoundError) return;
      throw error;
    }
    let webhook;
    try {
      webhook = (await this.options.agents.load(row.accountId, row.agentId)).config.webhooks?.completion;
    } catch (error) {
      if (error instanceof NotFoundError) return;
      throw error;
    }
    if (!webhook) return;
    const timestamp = this.options.now().toISOString();
    const delivery: WebhookDelivery = {
      deliveryId: webhookDeliveryId(row.eventId, row.status),
      accountId: row.accountId,
      agentId: row.agentId,
      eventId: row.eventId,
      eventStatus: row.status,
      state: 'pending',
      attempts: [],
      createdAt: timestamp,
      updatedAt: timestamp,
    };
    if (!(await this.options.repository.create(delivery))) {
      logger.info({ ...fields, deliveryId: delivery.deliveryId }, 'completion webhook already recorded');
      return;
    }
    this.enqueue(delivery);
  }

  private enqueue(ref: WebhookDeliveryRef): void {
    if (this.stopped) return;
    this.queue.push({ kind: 'webhook-delivery', accountId: ref.accountId, agentId: ref.agentId, deliveryId: ref.deliveryId });
  }

  /** The next attempt in this process after `delayMs` (the earliest asked for wins); a full share leaves it in storage. */
  private retryAt(ref: WebhookDeliveryRef, delayMs: number): void {
    if (this.stopped) return;
    this.scheduler.offer({ kind: 'webhook-delivery', accountId: ref.accountId, agentId: ref.agentId, deliveryId: ref.deliveryId }, Math.max(1, delayMs));
  }

  /**
   * An account's share has room again: its pending deliveries that waited in storage are taken up, oldest first, until
   * one is declined. The scheduler waits for this, and calls it again if a delivery was declined while it read.
   */
  private async refill(accountId: string): Promise<void> {
    try {
      const pending = await this.options.repository.pendingForAccount(accountId);
      const now = this.options.now().getTime();
      for (const delivery of pending) {
        const due = delivery.nextAttemptAt ? Date.parse(delivery.nextAttemptAt) : now;
        const job: WebhookDeliveryJob = { kind: 'webhook-delivery', accountId: delivery.accountId, agentId: delivery.agentId, deliveryId: delivery.deliveryId };
        if (!this.scheduler.offer(job, Math.max(0, due - now))) return;
      }
    } catch (error) {
      this.options.logger.warn({ event: 'completion-webhook', accountId, error: (error as Error).message }, 'could not read the pending deliveries of an account; a sweep takes them');
      this.sweeps.readFailed();
      throw error;
    }
  }

  private async run(job: WebhookDeliveryJob): Promise<void> {
    try {
      await this.attempt(job);
    } catch (error) {
      // Storage failures only: the delivery stays pending and a sweep or the next start takes it again.
      this.options.logger.error({ event: 'completion-webhook', deliveryId: job.deliveryId, error: (error as Error).message }, 'webhook delivery job failed');
    }
  }

  private async attempt(ref: WebhookDeliveryJob): Promise<void> {
    const { repository, settings, logger, now } = this.options;
    const startedAt = now();
    const claim = await repository.claimAttempt(ref, startedAt, new Date(startedAt.getTime() + settings.timeoutMs + claimMarginMs));
    if (claim.kind === 'not-due') return this.retryAt(ref, Date.parse(claim.dueAt) - startedAt.getTime());
    if (claim.kind === 'nothing-to-do') return;
    const { delivery, attempt } = claim;
    const fields = { event: 'completion-webhook', accountId: ref.accountId, agentId: ref.agentId, deliveryId: ref.deliveryId, eventId: delivery.eventId, attempt };
    const target = await webhookTarget(this.options, delivery);
    if ('dropped' in target) {
      logger.info({ ...fields, reason: target.dropped }, 'completion webhook dropped');
      await repository.finishAttempt(ref, attempt, { state: 'failed', error: target.dropped }, now());
      return;
    }
    const admission = this.destinations.admit(target.url);
    if (!admission.go) {
      // The receiver failed lately: this delivery waits (no attempt spent, no slot held) while one probes it.
      const waitMs = Math.max(1, Math.round(admission.waitMs * (1 + 0.2 * (this.options.random ?? Math.random)())));
      const nextAttemptAt = new Date(startedAt.getTime() + waitMs).toISOString();
      if (await repository.finishAttempt(ref, attempt, { state: 'pending', nextAttemptAt }, now())) this.retryAt(ref, waitMs);
      return;
    }
    const result = await postWebhook({
      url: target.url,
      secret: target.secret,
      body: target.body,
      deliveryId: ref.deliveryId,
      eventId: delivery.eventId,
      timestampSeconds: Math.floor(now().getTime() / 1000),
      timeoutMs: settings.timeoutMs,
      fetch: this.options.fetch ?? fetch,
      signal: this.stopping.signal,
    });
    this.destinations.report(target.url, isRetryable(result) ? 'failed' : 'answered');
    const finishedAt = now();
    const record: WebhookAttempt = {
      attempt,
      startedAt: startedAt.toISOString(),
      durationMs: finishedAt.getTime() - startedAt.getTime(),
      ...('statusCode' in result ? { statusCode: result.statusCode } : { error: result.error }),
    };
    const logFields = { ...fields, durationMs: record.durationMs, ...('statusCode' in result ? { statusCode: result.statusCode } : { error: result.error }) };
    if (isDelivered(result)) {
      logger.info(logFields, 'completion webhook delivered');
      await repository.finishAttempt(ref, attempt, { record, state: 'delivered' }, finishedAt);
      return;
    }
    const step = nextStep(attempt, result, settings, this.options.random);
    if (step === 'give-up') {
      logger.warn(logFields, 'completion webhook failed; no more attempts');
      await repository.finishAttempt(ref, attempt, { record, state: 'failed' }, finishedAt);
      return;
    }
    const nextAttemptAt = new Date(finishedAt.getTime() + step.retryInMs).toISOString();
    if (!(await repository.finishAttempt(ref, attempt, { record, state: 'pending', nextAttemptAt }, finishedAt))) return;
    logger.warn({ ...logFields, retryInMs: step.retryInMs }, 'completion webhook attempt failed; retrying');
    this.retryAt(ref, step.retryInMs);
  }
}
