/**
 * Parsed, validated EventBridge Scheduler expressions. Parsing happens once (when a job is
 * written); evaluating a parsed schedule never throws.
 */
export type Schedule = CronSchedule | RateSchedule | AtSchedule;

/** `cron(minutes hours day-of-month month day-of-week year)`, evaluated in the job's zone. */
export interface CronSchedule {
  readonly kind: 'cron';
  /** The expression as written, for messages and round trips. */
  readonly expression: string;
  /** Sorted, distinct minutes 0-59. */
  readonly minutes: readonly number[];
  /** Sorted, distinct hours 0-23. */
  readonly hours: readonly number[];
  /** Sorted, distinct months 1-12. */
  readonly months: readonly number[];
  /** Sorted, distinct years 1970-2199. */
  readonly years: readonly number[];
  /** Which days of a month match: from day-of-month or from day-of-week, whichever is not `?`. */
  readonly days: DayRule;
}

/**
 * The day part of a cron expression. Day-of-week numbers are EventBridge's: 1 = Sunday,
 * 7 = Saturday.
 */
export type DayRule =
  /** Day-of-month values, ranges, steps or `*` (days past the month's end never match). */
  | { readonly kind: 'days-of-month'; readonly days: readonly number[] }
  /** Day-of-month `L`. */
  | { readonly kind: 'last-day-of-month' }
  /** Day-of-month `LW`: the last Monday-Friday of the month. */
  | { readonly kind: 'last-weekday-of-month' }
  /** Day-of-month `nW`: the Monday-Friday nearest day n, never leaving the month. */
  | { readonly kind: 'nearest-weekday'; readonly day: number }
  /** Day-of-week values, ranges, `*`, or a bare `L` (Saturday). */
  | { readonly kind: 'days-of-week'; readonly weekdays: readonly number[] }
  /** Day-of-week `nL`: the last weekday n of the month. */
  | { readonly kind: 'last-weekday-n-of-month'; readonly weekday: number }
  /** Day-of-week `n#k`: the k-th weekday n of the month. */
  | { readonly kind: 'nth-weekday-of-month'; readonly weekday: number; readonly nth: number };

/** `rate(value unit)`: every `periodMinutes`, in absolute time, counted from an anchor. */
export interface RateSchedule {
  readonly kind: 'rate';
  readonly expression: string;
  readonly value: number;
  readonly unit: 'minute' | 'hour' | 'day';
  readonly periodMinutes: number;
}

/** `at(yyyy-mm-ddThh:mm:ss)`: once, at a wall-clock time in the job's zone. */
export interface AtSchedule {
  readonly kind: 'at';
  readonly expression: string;
  /** The local wall-clock time; seconds are kept for display but the fire time is the minute. */
  readonly localTime: WallClockTime;
}

/** A wall-clock reading in some time zone (month 1-12). */
export interface WallClockTime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}
