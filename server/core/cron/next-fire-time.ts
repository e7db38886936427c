import { nextCronFireTime } from './next-cron-fire-time.js';
import type { Schedule } from './schedule.js';
import { ceilToMinute, instantOfWallClockMinute } from './time-zone.js';

const minuteMs = 60_000;

/**
 * The first fire time strictly after `after`, at a whole minute, or null when nothing is
 * left (an `at()` already past or on a skipped local time, a cron year range that is over).
 *
 * `anchor` is when a `rate()` schedule started counting (creation or resume): it fires at
 * the anchor, rounded up to a whole minute, then every period after it, in absolute time
 * (a day is 24 hours whatever daylight saving does). Cron and at() ignore it.
 * At creation or resume use {@link firstFireTime}, which counts a slot at that very instant.
 */
export function nextFireTime(schedule: Schedule, timezone: string, after: Date, anchor: Date): Date | null {
  const afterMs = after.getTime();
  switch (schedule.kind) {
    case 'cron': {
      const instant = nextCronFireTime(schedule, timezone, afterMs);
      return instant === null ? null : new Date(instant);
    }
    case 'rate': {
      const firstSlot = ceilToMinute(anchor.getTime());
      if (firstSlot > afterMs) return new Date(firstSlot);
      const periodMs = schedule.periodMinutes * minuteMs;
      const periodsPassed = Math.floor((afterMs - firstSlot) / periodMs) + 1;
      return new Date(firstSlot + periodsPassed * periodMs);
    }
    case 'at': {
      const instant = atInstant(schedule.localTime, timezone);
      return instant !== null && instant > afterMs ? new Date(instant) : null;
    }
  }
}

/**
 * The first fire time of a schedule created or resumed at `now`: a slot at `now` itself
 * counts (so `rate()` fires straight away, as EventBridge does without a start date).
 */
export function firstFireTime(schedule: Schedule, timezone: string, now: Date): Date | null {
  return nextFireTime(schedule, timezone, new Date(now.getTime() - 1), now);
}

/** The instant of an at() time in `timezone`; null when that local minute does not exist. */
export function atInstant(localTime: { year: number; month: number; day: number; hour: number; minute: number }, timezone: string): number | null {
  const { year, month, day, hour, minute } = localTime;
  return instantOfWallClockMinute({ year, month, day, hour, minute }, timezone);
}
