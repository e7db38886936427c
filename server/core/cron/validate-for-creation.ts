import { InvalidRequestError } from '../errors.js';
import { atInstant, firstFireTime } from './next-fire-time.js';
import type { Schedule } from './schedule.js';
import { assertTimeZone } from './time-zone.js';

/**
 * Checks what only makes sense at creation (or when a job's schedule or zone changes):
 * the zone exists, an `at()` time exists in that zone and is not before `now` (it fires at
 * its minute; seconds are dropped), and a
 * cron expression has at least one fire time left. Throws `InvalidRequestError` naming
 * `timezone` or `scheduleExpression`.
 */
export function validateForCreation(schedule: Schedule, timezone: string, now: Date): void {
  assertTimeZone(timezone);
  if (schedule.kind === 'at') {
    const instant = atInstant(schedule.localTime, timezone);
    if (instant === null) {
      throw new InvalidRequestError(
        `scheduleExpression: ${schedule.expression} does not exist in ${timezone}: the clocks skip that time when daylight saving starts.`,
      );
    }
    if (instant < now.getTime()) {
      throw new InvalidRequestError(
        `scheduleExpression: ${schedule.expression} is in the past (${new Date(instant).toISOString()} in ${timezone}); at() must be in the future.`,
      );
    }
  }
  if (schedule.kind === 'cron' && firstFireTime(schedule, timezone, now) === null) {
    throw new InvalidRequestError(
      `scheduleExpression: ${schedule.expression} never fires after ${now.toISOString()} (its years are over or its days never occur).`,
    );
  }
}
