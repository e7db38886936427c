import type { DispatchGroup } from '../async-tools/async-tool-result.js';
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
  private readonly queue: Job[] = [];
  private running = 0;
  private readonly idleWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(
    private readonly turns: TurnRunner,
    private readonly events: EventsRepository,
    private readonly logger: Logger,
    private readonly concurrency = 4,
  ) {}

  enqueueEvent(eventId: string): void {
    this.push({ kind: 'event', eventId });
  }

  enqueueContinuation(group: DispatchGroup): void {
    this.push({ kind: 'continuation', group });
  }

  /** Resolves when the queue is empty and nothing runs (tests, shutdown). */
  idle(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Take no new work; wait for what runs. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.length = 0;
    await this.idle();
  }

  private push(job: Job): void {
    if (this.stopped) return;
    this.queue.push(job);
    this.pump();
  }

  private pump(): void {
    while (this.running < this.concurrency && this.queue.length > 0) {
      const job = this.queue.shift()!;
      this.running += 1;
      void this.run(job).finally(() => {
        this.running -= 1;
        this.pump();
        if (this.running === 0 && this.queue.length === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
      });
    }
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
