import { nextCronFireTime } from './next-cron-fire-time.js';
import type { Schedule } from './schedule.js';
import { floorToMinute, instantOfWallClockMinute } from './time-zone.js';

const minuteMs = 60_000;

/**
 * The first fire time strictly after `after`, at a whole minute, or null when nothing is
 * left (an `at()` already past or on a skipped local time, a cron year range that is over).
 *
 * `anchor` is when a `rate()` schedule started counting (creation or resume): its slots are
 * the anchor's minute and every period after it, in absolute time (a day is 24 hours whatever
 * daylight saving does). Cron and at() ignore it.
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
      const firstSlot = floorToMinute(anchor.getTime());
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
 * The first fire time of a schedule created or resumed at `now` (`anchor`: when a rate()
 * started counting, `now` unless given). It may lie up to a minute before `now`, meaning
 * "fire at once":
 * - cron: the first slot at or after `now` (a slot at `now` itself counts);
 * - rate(): the anchor's minute, so it fires at creation as EventBridge does without a start
 *   date, then every period from that minute;
 * - at(): its minute, as long as the time itself (seconds included) is not before `now`, so a
 *   time later in the current minute fires at once.
 */
export function firstFireTime(schedule: Schedule, timezone: string, now: Date, anchor: Date = now): Date | null {
  switch (schedule.kind) {
    case 'cron':
      return nextFireTime(schedule, timezone, new Date(now.getTime() - 1), anchor);
    case 'rate':
      return nextFireTime(schedule, timezone, new Date(floorToMinute(now.getTime()) - 1), anchor);
    case 'at': {
      const instant = atInstant(schedule.localTime, timezone);
      return instant !== null && instant + schedule.localTime.second * 1000 >= now.getTime() ? new Date(instant) : null;
    }
  }
}

/** The instant of an at() time in `timezone`; null when that local minute does not exist. */
export function atInstant(localTime: { year: number; month: number; day: number; hour: number; minute: number }, timezone: string): number | null {
  const { year, month, day, hour, minute } = localTime;
  return instantOfWallClockMinute({ year, month, day, hour, minute }, timezone);
}
