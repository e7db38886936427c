import { assertTimeZone, firstFireTime, nextFireTime, parseScheduleExpression } from '../../server/core/schedule-expressions/index.js';
import { HarnessError } from '../../server/core/errors.js';
import { UsageError } from '../cli-error.js';

/**
 * `harness cron next`: the engine the service uses, run locally, so what it prints is what a
 * job created now with that expression and zone would do. No server is involved.
 */
export function nextFireTimes(expression: string, timezone: string, count: number, from: Date): Date[] {
  let schedule;
  try {
    assertTimeZone(timezone);
    schedule = parseScheduleExpression(expression);
  } catch (error) {
    // The engine's 400 messages name the field; here the field is a command-line argument.
    if (error instanceof HarnessError) throw new UsageError(error.message.replace(/^timezone:/, '--tz:'));
    throw error;
  }
  const times: Date[] = [];
  for (let next = firstFireTime(schedule, timezone, from); next && times.length < count; next = nextFireTime(schedule, timezone, next, from)) times.push(next);
  return times;
}
