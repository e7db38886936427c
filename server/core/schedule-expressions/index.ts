/**
 * The schedule expression engine: EventBridge Scheduler's `cron()`, `rate()` and `at()`
 * parsed, validated and evaluated in IANA time zones. Pure: no timers, no storage.
 * See docs/schedule-expressions.md.
 */
export type { AtSchedule, CronSchedule, DayRule, RateSchedule, Schedule, WallClockTime } from './schedule.js';
export { parseScheduleExpression } from './parse-schedule-expression.js';
export { assertTimeZone } from './time-zone.js';
export { validateForCreation } from './validate-for-creation.js';
export { firstFireTime, nextFireTime } from './next-fire-time.js';
