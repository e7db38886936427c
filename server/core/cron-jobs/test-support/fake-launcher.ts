import type { CronEventOutcome, CronRunLauncher, CronRunRequest } from '../cron-run-launcher.js';

/** Records what the scheduler submits; runs end when the test says so. */
export class FakeLauncher implements CronRunLauncher {
  readonly submitted: CronRunRequest[] = [];
  private readonly events = new Map<string, CronEventOutcome>();
  private readonly listeners = new Set<(outcome: CronEventOutcome) => void>();
  /** When set, `submit` calls `reached` and then waits for `promise`, before (or after) it records the run. */
  gate: { promise: Promise<void>; where: 'before' | 'after'; reached: () => void } | undefined;

  async submit(request: CronRunRequest): Promise<'submitted' | 'already-submitted'> {
    if (this.gate?.where === 'before') {
      this.gate.reached();
      await this.gate.promise;
    }
    if (this.events.has(request.eventId)) return 'already-submitted';
    this.submitted.push(request);
    this.events.set(request.eventId, { eventId: request.eventId, status: 'queued' });
    if (this.gate?.where === 'after') {
      this.gate.reached();
      await this.gate.promise;
    }
    return 'submitted';
  }

  async outcome(_accountId: string, eventId: string): Promise<CronEventOutcome | undefined> {
    return this.events.get(eventId);
  }

  onOutcome(listener: (outcome: CronEventOutcome) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The run's event ends. */
  finish(eventId: string, status: 'completed' | 'failed', error?: string): void {
    const outcome: CronEventOutcome = { eventId, status, ...(error ? { error } : {}) };
    this.events.set(eventId, outcome);
    for (const listener of this.listeners) listener(outcome);
  }
}
