import { matchingDays } from './matching-days.js';
import type { CronSchedule } from './schedule.js';
import { instantOfWallClockMinute, wallClockAt } from './time-zone.js';

/**
 * The first instant strictly after `afterMs` at which `schedule` fires in `timezone`, or
 * null when none is left (the year field has run out).
 *
 * Walks wall-clock candidates in order (year, month, matching day, hour, minute), starting
 * at the wall-clock minute of `afterMs`, so it skips whole years, months, days and hours
 * that cannot match instead of stepping minute by minute. Each candidate becomes an
 * instant by EventBridge's daylight-saving rules: a skipped local time never fires, a
 * repeated one fires at its first occurrence only. Taking first occurrences keeps the
 * instants in wall-clock order, so the first candidate past `afterMs` is the answer.
 */
export function nextCronFireTime(schedule: CronSchedule, timezone: string, afterMs: number): number | null {
  const start = wallClockAt(afterMs, timezone);
  for (const year of schedule.years) {
    if (year < start.year) continue;
    const startYear = year === start.year;
    for (const month of schedule.months) {
      if (startYear && month < start.month) continue;
      const startMonth = startYear && month === start.month;
      for (const day of matchingDays(schedule.days, year, month)) {
        if (startMonth && day < start.day) continue;
        const startDay = startMonth && day === start.day;
        for (const hour of schedule.hours) {
          if (startDay && hour < start.hour) continue;
          const startHour = startDay && hour === start.hour;
          for (const minute of schedule.minutes) {
            if (startHour && minute < start.minute) continue;
            const instant = instantOfWallClockMinute({ year, month, day, hour, minute }, timezone);
            if (instant !== null && instant > afterMs) return instant;
          }
        }
      }
    }
  }
  return null;
}
