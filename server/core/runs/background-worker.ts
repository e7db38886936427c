import { AccountDisabledError } from '../accounts/account-status.js';
import type { AsyncRequestRecord } from './status-row.js';
import type { AsyncRequestTransitions } from './status-row-transitions.js';
import type { AsyncSettlement } from '../async-tools/async-settlement.js';
import type { AsyncToolResultsRepository } from '../async-tools/async-tool-results-repository.js';
import type { ContinuationDeliveries } from './continuation-dispatcher.js';
import type { Logger } from '../logger.js';
import { runTurnToEnd } from './run-turn-to-end.js';
import type { TurnRunner } from '../turns/turn-runner.js';
import { deliveredTransport, transports } from '../transports/transports.js';
import type { AsyncRequestJob, ContinuationJob } from './background-job.js';
import { linkContinuationToTurn, traceAsyncRequest, traceContinuation } from './background-job-spans.js';
import type { JobDelivery } from '../coordination/job-queue.js';
import { RunQueue } from './run-queue.js';

export interface BackgroundWorkerOptions {
  turns: Pick<TurnRunner, 'start' | 'startContinuation'>;
  /** The status rows, moved only through their transitions. */
  transitions: AsyncRequestTransitions;
  asyncResults: AsyncToolResultsRepository;
  settlement: Pick<AsyncSettlement, 'finishContinuation'>;
  /** Each transport's continuation delivery (SSE to the chunk log, NATS, channels); none: the status row only. */
  deliveries: ContinuationDeliveries;
  logger: Logger;
  /** The queue it consumes (default: its own, in memory). */
  queue?: RunQueue;
}

/**
 * Runs `/async` requests (cron runs among them) and every continuation after async tools,
 * whatever its transport, each through `runTurnToEnd`. The jobs name ids only and their
 * truth is in storage: after a restart, recovery queues the unfinished ones again.
 */
export class BackgroundWorker {
  private readonly queue: RunQueue;

  constructor(private readonly options: BackgroundWorkerOptions) {
    this.queue = options.queue ?? new RunQueue();
    this.queue.consume((job, delivery) => this.run(job, delivery));
  }

  enqueue(job: AsyncRequestJob | ContinuationJob): void {
    this.queue.push(job);
  }

  /** Resolves when the queue is empty and nothing runs (tests, shutdown). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Take no new work; wait for what runs. */
  stop(): Promise<void> {
    return this.queue.stop();
  }

  private async run(job: AsyncRequestJob | ContinuationJob, delivery: JobDelivery): Promise<void> {
    try {
      if (job.kind === 'async-request') await this.runAsyncRequest(job.eventId, delivery);
      else await traceContinuation(job.groupId, () => this.runContinuation(job.groupId));
    } catch (error) {
      this.options.logger.error({ event: 'background-worker', job, error: (error as Error).message }, 'background job failed');
    }
  }

  /**
   * A queued request: claimed once (`processing`), run to its end, its result on the row. A
   * job delivered again (the replica that held it died before it finished) finds the row
   * `processing` and takes it over, so the request still ends; a row already final is left.
   */
  private async runAsyncRequest(eventId: string, delivery: JobDelivery): Promise<void> {
    const { transitions } = this.options;
    const claimed = (await transitions.claim(eventId)) ?? (delivery.attempt > 1 ? await transitions.takeOver(eventId) : undefined);
    if (!claimed?.input) return;
    await traceAsyncRequest(claimed, () => this.runClaimed(eventId, claimed));
  }

  private async runClaimed(eventId: string, claimed: AsyncRequestRecord): Promise<void> {
    const { transitions, turns, logger } = this.options;
    if (!claimed.input) return;
    try {
      const result = await runTurnToEnd(
        await turns.start({
          accountId: claimed.accountId,
          agentId: claimed.agentId,
          conversationKey: claimed.conversationKey,
          input: claimed.input,
          ...(claimed.overrides ? { overrides: claimed.overrides } : {}),
          ...(claimed.busyMode ? { busy: claimed.busyMode } : {}),
          transport: claimed.transport,
          approvalPolicy: transports[claimed.transport].approvals.policy,
          eventId,
        }),
      );
      await transitions.finishTurn(eventId, result);
    } catch (error) {
      const message = (error as Error).message;
      logger.warn({ event: 'async-worker', eventId, error: message }, 'async job failed');
      await transitions.fail(eventId, message);
    }
  }

  /**
   * A claimed continuation: run to its end, its output to the transport's delivery, its
   * result on the parent's status row, and the group marked done so a restart does not run it
   * again. A disabled account's continuation does not run: the row ends `failed` with the
   * reason and the group is marked done too.
   */
  private async runContinuation(groupId: string): Promise<void> {
    const { transitions, turns, logger, settlement } = this.options;
    const group = (await this.options.asyncResults.snapshot(groupId)).group?.value;
    if (group?.continuation?.state !== 'claimed') return;
    linkContinuationToTurn(group);
    const delivered = deliveredTransport(group.delivery.transport);
    const delivery = delivered && this.options.deliveries[delivered];
    const eventId = group.delivery.eventId;
    let result;
    try {
      const started = await turns.startContinuation(group);
      result = await runTurnToEnd(started, delivery?.stream?.(group, started.turnId));
    } catch (error) {
      const message = (error as Error).message;
      logger.warn({ event: 'continuation', groupId, eventId, error: message }, 'continuation could not run');
      await transitions.fail(eventId, message);
      if (error instanceof AccountDisabledError) await settlement.finishContinuation(groupId);
      await delivery?.failedToStart?.(group, error);
      return;
    }
    await transitions.finishTurn(eventId, result);
    await settlement.finishContinuation(groupId);
    await delivery?.finished?.(group, result);
  }
}
