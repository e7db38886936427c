import type { DispatchGroup } from '../async-tools/async-tool-result.js';
import { BoundedJobQueue } from '../bounded-job-queue.js';
import type { Logger } from '../logger.js';
import type { StartedTurn, TurnRunner } from '../turns/turn-runner.js';
import type { EventsRepository } from './events-repository.js';

type Job = { kind: 'event'; eventId: string } | { kind: 'continuation'; group: DispatchGroup };

/**
 * The in-process worker of `/async` requests and of continuations after async tools, with
 * bounded concurrency. Its queue lives in memory, its truth in the events and async tables:
 * after a restart, recovery puts the unfinished work back on the queue.
 */
export class AsyncWorker {
  private readonly queue: BoundedJobQueue<Job>;

  constructor(
    private readonly turns: TurnRunner,
    private readonly events: EventsRepository,
    private readonly logger: Logger,
    concurrency = 4,
  ) {
    this.queue = new BoundedJobQueue((job) => this.run(job), concurrency);
  }

  enqueueEvent(eventId: string): void {
    this.queue.push({ kind: 'event', eventId });
  }

  enqueueContinuation(group: DispatchGroup): void {
    this.queue.push({ kind: 'continuation', group });
  }

  /** Resolves when the queue is empty and nothing runs (tests, shutdown). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Take no new work; wait for what runs. */
  stop(): Promise<void> {
    return this.queue.stop();
  }

  private async run(job: Job): Promise<void> {
    try {
      if (job.kind === 'event') await this.runEvent(job.eventId);
      else await this.consume(await this.turns.startContinuation(job.group));
    } catch (error) {
      const eventId = job.kind === 'event' ? job.eventId : job.group.delivery.eventId;
      const message = (error as Error).message;
      this.logger.warn({ event: 'async-worker', eventId, error: message }, 'async job failed');
      await this.events
        .update(eventId, (event) => (event.status === 'completed' ? undefined : { ...event, status: 'failed', error: message, updatedAt: new Date().toISOString() }))
        .catch(() => undefined);
    }
  }

  private async runEvent(eventId: string): Promise<void> {
    const claimed = await this.events.update(eventId, (event) => (event.status === 'queued' ? { ...event, status: 'processing', updatedAt: new Date().toISOString() } : undefined));
    if (!claimed || claimed.status !== 'processing' || !claimed.input) return;
    await this.consume(
      await this.turns.start({
        accountId: claimed.accountId,
        agentId: claimed.agentId,
        conversationKey: claimed.conversationKey,
        input: claimed.input,
        transport: claimed.transport,
        approvalPolicy: claimed.transport === 'cron' || claimed.transport === 'channel' ? 'deny' : 'ask',
        eventId,
        settlesEvent: true,
      }),
    );
  }

  private async consume(turn: StartedTurn): Promise<void> {
    const reader = turn.stream.getReader();
    for (;;) if ((await reader.read()).done) break;
    await turn.result;
  }
}
