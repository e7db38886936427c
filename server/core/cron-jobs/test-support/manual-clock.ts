import type { SchedulerClock, SchedulerTimer } from '../scheduler-clock.js';

interface PendingTimer {
  at: number;
  order: number;
  callback: () => void;
}

/**
 * A clock that only moves when a test says so. Timers fire at their exact instant, in order,
 * with `now()` reading that instant; `runUntil` lets the scheduler's async work finish after
 * each timer, as real time would.
 */
export class ManualClock implements SchedulerClock {
  private current: number;
  private timers: PendingTimer[] = [];
  private order = 0;

  constructor(start: Date | string) {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  setTimer(callback: () => void, delayMs: number): SchedulerTimer {
    const timer: PendingTimer = { at: this.current + Math.max(0, delayMs), order: (this.order += 1), callback };
    this.timers.push(timer);
    return { cancel: () => (this.timers = this.timers.filter((pending) => pending !== timer)) };
  }

  /** Timers not yet fired. */
  pendingTimers(): number {
    return this.timers.length;
  }

  /**
   * Move to `target`, firing each due timer at its own instant and awaiting `settle` (e.g. the
   * scheduler's `idle()`) after each, so work started by one timer sees the time it ran at.
   */
  async runUntil(target: Date | string, settle: () => Promise<void> = async () => {}): Promise<void> {
    const end = new Date(target).getTime();
    for (;;) {
      const next = [...this.timers].sort((left, right) => left.at - right.at || left.order - right.order)[0];
      if (!next || next.at > end) break;
      this.timers = this.timers.filter((pending) => pending !== next);
      this.current = Math.max(this.current, next.at);
      next.callback();
      await settle();
    }
    this.current = Math.max(this.current, end);
    await settle();
  }

  /** Jump to `target` without firing anything (the process was not running meanwhile). */
  jump(target: Date | string): void {
    this.current = new Date(target).getTime();
  }
}
