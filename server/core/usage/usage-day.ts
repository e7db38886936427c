import { InvalidRequestError } from '../errors.js';

/** Usage is counted per UTC calendar day, written `YYYY-MM-DD`. */
export type UsageDay = string;

const dayMilliseconds = 86_400_000;
const datePattern = /^\d{4}-\d{2}-\d{2}$/;
const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** The UTC day of a moment. */
export function utcDay(moment: Date): UsageDay {
  return moment.toISOString().slice(0, 10);
}

/** The UTC month a day belongs to, `YYYY-MM`. */
export function monthOf(day: UsageDay): string {
  return day.slice(0, 7);
}

/** Seconds from `moment` to the next UTC midnight, at least 1: when a daily budget is given back. */
export function secondsUntilNextUtcDay(moment: Date): number {
  const next = Date.UTC(moment.getUTCFullYear(), moment.getUTCMonth(), moment.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - moment.getTime()) / 1000));
}

/** The next UTC midnight after `moment`, as an ISO timestamp. */
export function nextUtcMidnight(moment: Date): string {
  return new Date(Date.UTC(moment.getUTCFullYear(), moment.getUTCMonth(), moment.getUTCDate() + 1)).toISOString();
}

/** The day `count` days after `day` (before, when negative). */
export function addDays(day: UsageDay, count: number): UsageDay {
  return new Date(Date.parse(`${day}T00:00:00Z`) + count * dayMilliseconds).toISOString().slice(0, 10);
}

/** Days from `from` to `to`, both included (0 when `to` is before `from`). */
export function daysInRange(from: UsageDay, to: UsageDay): number {
  return Math.max(0, Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / dayMilliseconds) + 1);
}

/** The months (`YYYY-MM`) a range of days touches, in order. */
export function monthsInRange(from: UsageDay, to: UsageDay): string[] {
  const months: string[] = [];
  let year = Number(from.slice(0, 4));
  let month = Number(from.slice(5, 7));
  const last = monthOf(to);
  for (;;) {
    const current = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`;
    if (current > last) return months;
    months.push(current);
    month += 1;
    if (month > 12) {
      month = 1;
      year += 1;
    }
  }
}

/**
 * A query's date as a UTC day: `YYYY-MM-DD` (a real calendar date), or an ISO date-time whose
 * UTC day is taken. Anything else is a 400 naming the field.
 */
export function parseUsageDay(value: string, field: string): UsageDay {
  if (datePattern.test(value)) {
    const parsed = new Date(`${value}T00:00:00Z`);
    if (!Number.isNaN(parsed.getTime()) && utcDay(parsed) === value) return value;
  } else if (dateTimePattern.test(value)) {
    const parsed = new Date(value);
    if (!Number.isNaN(parsed.getTime())) return utcDay(parsed);
  }
  throw new InvalidRequestError(`${field} must be an ISO date (YYYY-MM-DD), got ${JSON.stringify(value)}`);
}
