import { InvalidRequestError } from '../errors.js';
import { addDays, daysInRange, parseUsageDay, type UsageDay, utcDay } from './usage-day.js';

/** Days a usage query covers when it names no `from`: the last 30, today included. */
export const defaultUsageDays = 30;
/** The most days one usage query may cover (a leap year). */
export const maxUsageDays = 366;

export interface UsageRange {
  from: UsageDay;
  to: UsageDay;
}

/**
 * The days a usage query covers, both ends included. `to` defaults to today (UTC), `from` to
 * 29 days before `to`. A bad date, `from` after `to`, or more than 366 days is a 400.
 */
export function resolveUsageRange(query: { from?: string; to?: string }, now: Date): UsageRange {
  const to = query.to === undefined ? utcDay(now) : parseUsageDay(query.to, 'to');
  const from = query.from === undefined ? addDays(to, 1 - defaultUsageDays) : parseUsageDay(query.from, 'from');
  if (from > to) throw new InvalidRequestError(`from (${from}) must not be after to (${to})`);
  const days = daysInRange(from, to);
  if (days > maxUsageDays) throw new InvalidRequestError(`from..to covers ${days} days; the limit is ${maxUsageDays}`);
  return { from, to };
}
