import { InvalidRequestError } from '../errors.js';
import { atInstant, firstFireTime } from './next-fire-time.js';
import type { Schedule } from './schedule.js';
import { assertTimeZone } from './time-zone.js';

/**
 * Checks what only makes sense at creation (or when a job's schedule or zone changes):
 * the zone exists, an `at()` time exists in that zone and is not before `now` (seconds
 * included; it fires at its minute, so a time later in the current minute fires at once), and
 * a cron expression has at least one fire time left. Throws `InvalidRequestError` naming
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
    if (firstFireTime(schedule, timezone, now) === null) {
      throw new InvalidRequestError(
        `scheduleExpression: ${schedule.expression} is in the past (${new Date(instant + schedule.localTime.second * 1000).toISOString()} in ${timezone}); at() must be in the future.`,
      );
    }
  }
  if (schedule.kind === 'cron' && firstFireTime(schedule, timezone, now) === null) {
    throw new InvalidRequestError(
      `scheduleExpression: ${schedule.expression} never fires after ${now.toISOString()} (its years are over or its days never occur).`,
    );
  }
}
