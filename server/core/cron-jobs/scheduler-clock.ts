/** A timer that can be cancelled before it fires. */
export interface SchedulerTimer {
  cancel(): void;
}

/**
 * Time as the scheduler sees it. Injectable so tests move time by hand (no real waiting, no
 * timing assertions) and the benchmark can shift it.
 */
export interface SchedulerClock {
  now(): Date;
  /** Call `callback` once, `delayMs` from now. */
  setTimer(callback: () => void, delayMs: number): SchedulerTimer;
}

/** setTimeout's ceiling (about 24.8 days); a longer sleep is taken in several steps. */
export const maxTimerDelayMs = 2_147_483_647;

/** The real clock; its timers do not keep the process alive on their own. */
export function systemClock(now: () => Date = () => new Date()): SchedulerClock {
  return {
    now,
    setTimer(callback, delayMs) {
      const timer = setTimeout(callback, Math.min(Math.max(0, delayMs), maxTimerDelayMs));
      timer.unref();
      return { cancel: () => clearTimeout(timer) };
    },
  };
}
