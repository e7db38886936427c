import { describe, expect, it } from 'vitest';
import { firstFireTime, nextFireTime } from './next-fire-time.js';
import { parseScheduleExpression } from './parse-schedule-expression.js';

/**
 * Conformance table. Every expected time was worked out by hand from EventBridge
 * Scheduler's documented semantics and a calendar (2025-01-15 is a Wednesday), not by
 * running this code. `after` defaults to Wednesday 2025-01-15 10:07:30 UTC.
 */
const from = '2025-01-15T10:07:30Z';

interface Row {
  expression: string;
  expected: string | null;
  timezone?: string;
  after?: string;
  /** For rate(): when counting started. Defaults to `after`. */
  anchor?: string;
  why: string;
}

const rows: Row[] = [
  // Minutes and hours: every, steps, lists, ranges.
  { expression: 'cron(* * * * ? *)', expected: '2025-01-15T10:08:00Z', why: 'every minute; seconds are 0' },
  { expression: 'cron(0/15 * * * ? *)', expected: '2025-01-15T10:15:00Z', why: '0/15 is 0,15,30,45' },
  { expression: 'cron(*/10 * * * ? *)', expected: '2025-01-15T10:10:00Z', why: '*/10 is 0,10,...,50' },
  { expression: 'cron(5/20 * * * ? *)', expected: '2025-01-15T10:25:00Z', why: '5/20 is 5,25,45' },
  { expression: 'cron(7 * * * ? *)', expected: '2025-01-15T11:07:00Z', why: '10:07 is before 10:07:30, so the next hour' },
  { expression: 'cron(0 10 * * ? *)', expected: '2025-01-16T10:00:00Z', why: "today's 10:00 has passed" },
  { expression: 'cron(15 12 * * ? *)', expected: '2025-01-15T12:15:00Z', why: 'later today' },
  { expression: 'cron(0 10,15 * * ? *)', expected: '2025-01-15T15:00:00Z', why: 'hour list' },
  { expression: 'cron(0,30 9-17 ? * MON-FRI *)', expected: '2025-01-15T10:30:00Z', why: 'minute list, hour range, weekdays' },
  { expression: 'cron(0 0/6 * * ? *)', expected: '2025-01-15T12:00:00Z', why: 'hours 0,6,12,18' },
  // Day-of-week names and numbers (1 = SUN).
  { expression: 'cron(0 18 ? * MON-FRI *)', expected: '2025-01-15T18:00:00Z', why: 'Wednesday is in MON-FRI' },
  { expression: 'cron(0 8 ? * MON-FRI *)', expected: '2025-01-16T08:00:00Z', why: 'today 08:00 passed; Thursday' },
  { expression: 'cron(0 9 ? * 2-6 *)', expected: '2025-01-16T09:00:00Z', why: '2-6 is MON-FRI' },
  { expression: 'cron(0 12 ? * SUN *)', expected: '2025-01-19T12:00:00Z', why: 'next Sunday' },
  { expression: 'cron(0 12 ? * 1 *)', expected: '2025-01-19T12:00:00Z', why: '1 is Sunday' },
  { expression: 'cron(0 12 ? * 7 *)', expected: '2025-01-18T12:00:00Z', why: '7 is Saturday' },
  { expression: 'cron(0 12 ? * sat,sun *)', expected: '2025-01-18T12:00:00Z', why: 'names are case-insensitive' },
  { expression: 'cron(0 12 ? * L *)', expected: '2025-01-18T12:00:00Z', why: 'L alone in day-of-week is Saturday' },
  { expression: 'cron(0 0 ? JAN-MAR 2 *)', expected: '2025-01-20T00:00:00Z', why: 'Mondays in Jan-Mar' },
  // Months.
  { expression: 'cron(0 9 1 JAN ? *)', expected: '2026-01-01T09:00:00Z', why: 'January 1st has passed this year' },
  { expression: 'cron(0 12 1 1/3 ? *)', expected: '2025-04-01T12:00:00Z', why: 'months 1,4,7,10' },
  { expression: 'cron(59 23 31 DEC ? *)', expected: '2025-12-31T23:59:00Z', why: 'last minute of the year' },
  { expression: 'cron(0 0 31 * ? *)', expected: '2025-01-31T00:00:00Z', why: 'day 31' },
  { expression: 'cron(0 0 31 4 ? *)', expected: null, why: 'April has no 31st, ever' },
  // L, LW, W.
  { expression: 'cron(0 0 L * ? *)', expected: '2025-01-31T00:00:00Z', why: 'last day of January' },
  { expression: 'cron(0 0 L 2 ? *)', expected: '2025-02-28T00:00:00Z', why: 'last day of February 2025' },
  { expression: 'cron(0 0 LW * ? *)', expected: '2025-01-31T00:00:00Z', why: 'Jan 31 is a Friday' },
  { expression: 'cron(0 0 LW 5 ? *)', expected: '2025-05-30T00:00:00Z', why: 'May 31 is a Saturday: Friday 30th' },
  { expression: 'cron(0 0 LW 8 ? *)', expected: '2025-08-29T00:00:00Z', why: 'Aug 31 is a Sunday: Friday 29th' },
  { expression: 'cron(0 9 1W * ? *)', expected: '2025-02-03T09:00:00Z', why: 'Feb 1 is a Saturday: Monday the 3rd, not Jan 31' },
  { expression: 'cron(0 9 1W 6 ? *)', expected: '2025-06-02T09:00:00Z', why: 'June 1 is a Sunday: Monday the 2nd' },
  { expression: 'cron(0 9 31W 8 ? *)', expected: '2025-08-29T09:00:00Z', why: 'Aug 31 is a Sunday: Friday the 29th, not Sept 1' },
  { expression: 'cron(0 9 15W * ? *)', expected: '2025-02-14T09:00:00Z', why: 'Jan 15 09:00 passed; Feb 15 is a Saturday: Friday 14th' },
  // # and nL.
  { expression: 'cron(0 9 ? * 3#2 *)', expected: '2025-02-11T09:00:00Z', why: 'second Tuesday: Jan 14 passed, Feb 11' },
  { expression: 'cron(0 9 ? * MON#1 *)', expected: '2025-02-03T09:00:00Z', why: 'first Monday of February' },
  { expression: 'cron(0 9 ? * 6#5 *)', expected: '2025-01-31T09:00:00Z', why: 'fifth Friday of January' },
  { expression: 'cron(0 9 ? 2 6#5 *)', expected: '2036-02-29T09:00:00Z', why: 'February has a fifth Friday only in a leap year starting on a Friday' },
  { expression: 'cron(0 9 ? * 2L *)', expected: '2025-01-27T09:00:00Z', why: 'last Monday of January' },
  { expression: 'cron(0 17 ? FEB FRIL *)', expected: '2025-02-28T17:00:00Z', why: 'last Friday of February 2025 is the 28th' },
  // Year field and leap day.
  { expression: 'cron(0 0 29 2 ? *)', expected: '2028-02-29T00:00:00Z', why: 'next leap day' },
  { expression: 'cron(0 0 1 * ? 2025-2026)', expected: '2025-02-01T00:00:00Z', why: 'year range in force' },
  { expression: 'cron(0 0 1 1 ? 2024-2025)', expected: null, why: 'year range over' },
  { expression: 'cron(0 0 1 1 ? 2024)', expected: null, why: 'single past year' },
  { expression: 'cron(0 0 1 1 ? 2030/5)', expected: '2030-01-01T00:00:00Z', why: 'years 2030, 2035, ...' },
  // Zones without daylight saving.
  { expression: 'cron(0 9 * * ? *)', timezone: 'Asia/Tokyo', expected: '2025-01-16T00:00:00Z', why: 'it is 19:07 in Tokyo: tomorrow 09:00 JST' },
  { expression: 'cron(0 9 * * ? *)', timezone: 'Asia/Kolkata', expected: '2025-01-16T03:30:00Z', why: '+05:30' },
  { expression: 'cron(0 17 * * ? *)', timezone: 'Asia/Ho_Chi_Minh', expected: '2025-01-16T10:00:00Z', why: 'it is 17:07 in Saigon: tomorrow 17:00' },
  // America/New_York: spring forward 2025-03-09 02:00 EST -> 03:00 EDT (07:00Z).
  { expression: 'cron(30 2 * * ? *)', timezone: 'America/New_York', after: '2025-03-08T12:00:00Z', expected: '2025-03-10T06:30:00Z', why: '02:30 on Mar 9 does not exist: skipped' },
  { expression: 'cron(0 3 * * ? *)', timezone: 'America/New_York', after: '2025-03-09T06:00:00Z', expected: '2025-03-09T07:00:00Z', why: '03:00 EDT right after the jump' },
  { expression: 'cron(0,30 * * * ? *)', timezone: 'America/New_York', after: '2025-03-09T06:45:00Z', expected: '2025-03-09T07:00:00Z', why: '02:00 and 02:30 skipped, 03:00 EDT' },
  { expression: 'cron(0 12 * * ? *)', timezone: 'America/New_York', after: '2025-03-09T00:00:00Z', expected: '2025-03-09T16:00:00Z', why: 'noon EDT' },
  // America/New_York: fall back 2025-11-02 02:00 EDT -> 01:00 EST (06:00Z).
  { expression: 'cron(30 1 * * ? *)', timezone: 'America/New_York', after: '2025-11-02T00:00:00Z', expected: '2025-11-02T05:30:00Z', why: 'first 01:30 (EDT)' },
  { expression: 'cron(30 1 * * ? *)', timezone: 'America/New_York', after: '2025-11-02T05:30:00Z', expected: '2025-11-03T06:30:00Z', why: 'the repeated 01:30 EST does not run again' },
  { expression: 'cron(0/30 * * * ? *)', timezone: 'America/New_York', after: '2025-11-02T05:30:00Z', expected: '2025-11-02T07:00:00Z', why: 'repeated 01:00 and 01:30 run once: next is 02:00 EST' },
  // Europe/Berlin: spring forward 2025-03-30 02:00 CET -> 03:00 CEST (01:00Z).
  { expression: 'cron(30 2 * * ? *)', timezone: 'Europe/Berlin', after: '2025-03-29T12:00:00Z', expected: '2025-03-31T00:30:00Z', why: '02:30 on Mar 30 does not exist: skipped' },
  { expression: 'cron(0 12 * * ? *)', timezone: 'Europe/Berlin', after: '2025-03-30T00:00:00Z', expected: '2025-03-30T10:00:00Z', why: 'noon CEST' },
  // Europe/Berlin: fall back 2025-10-26 03:00 CEST -> 02:00 CET (01:00Z).
  { expression: 'cron(30 2 * * ? *)', timezone: 'Europe/Berlin', after: '2025-10-25T12:00:00Z', expected: '2025-10-26T00:30:00Z', why: 'first 02:30 (CEST)' },
  { expression: 'cron(30 2 * * ? *)', timezone: 'Europe/Berlin', after: '2025-10-26T00:30:00Z', expected: '2025-10-27T01:30:00Z', why: 'the repeated 02:30 CET does not run again' },
  // Australia/Lord_Howe moves by 30 minutes: 2025-10-05 02:00 (+10:30) -> 02:30 (+11:00).
  { expression: 'cron(15 2 * * ? *)', timezone: 'Australia/Lord_Howe', after: '2025-10-04T00:00:00Z', expected: '2025-10-05T15:15:00Z', why: '02:15 on Oct 5 does not exist: Oct 6 02:15 +11:00' },
  { expression: 'cron(45 2 * * ? *)', timezone: 'Australia/Lord_Howe', after: '2025-10-04T00:00:00Z', expected: '2025-10-04T15:45:00Z', why: '02:45 exists on Oct 5: 02:45 +11:00' },
  // rate(): absolute time from the anchor.
  { expression: 'rate(5 minutes)', anchor: '2025-01-15T10:00:00Z', expected: '2025-01-15T10:10:00Z', why: '10:00, 10:05, 10:10' },
  { expression: 'rate(1 minute)', anchor: '2025-01-15T10:00:00Z', expected: '2025-01-15T10:08:00Z', why: 'every minute' },
  { expression: 'rate(1 hour)', anchor: '2025-01-15T09:30:00Z', expected: '2025-01-15T10:30:00Z', why: 'from 09:30 hourly' },
  { expression: 'rate(3 days)', anchor: '2025-01-01T00:00:00Z', expected: '2025-01-16T00:00:00Z', why: 'Jan 1, 4, 7, 10, 13, 16' },
  { expression: 'rate(2 hours)', anchor: '2025-01-15T12:00:00Z', expected: '2025-01-15T12:00:00Z', why: 'anchor still ahead (resumed later): fires at it' },
  { expression: 'rate(1 day)', timezone: 'America/New_York', anchor: '2025-03-08T12:00:00Z', after: '2025-03-09T00:00:00Z', expected: '2025-03-09T12:00:00Z', why: '24 hours, not local 07:00: DST does not move rate()' },
  // at(): a local time in the job's zone.
  { expression: 'at(2025-06-01T09:00:00)', timezone: 'America/New_York', expected: '2025-06-01T13:00:00Z', why: '09:00 EDT' },
  { expression: 'at(2025-01-20T09:00:00)', timezone: 'Asia/Ho_Chi_Minh', expected: '2025-01-20T02:00:00Z', why: '+07:00' },
  { expression: 'at(2025-01-20T09:00:45)', expected: '2025-01-20T09:00:00Z', why: 'fires at its minute' },
  { expression: 'at(2025-01-15T10:00:00)', expected: null, why: 'already past' },
  { expression: 'at(2025-11-02T01:30:00)', timezone: 'America/New_York', expected: '2025-11-02T05:30:00Z', why: 'repeated local time: first occurrence' },
  { expression: 'at(2025-03-09T02:30:00)', timezone: 'America/New_York', expected: null, why: 'skipped local time never fires' },
];

describe('nextFireTime conformance table', () => {
  it.each(rows)('$expression in $timezone after $after → $expected ($why)', (row) => {
    const after = new Date(row.after ?? from);
    const anchor = new Date(row.anchor ?? row.after ?? from);
    const next = nextFireTime(parseScheduleExpression(row.expression), row.timezone ?? 'UTC', after, anchor);
    expect(next?.toISOString() ?? null).toBe(row.expected === null ? null : new Date(row.expected).toISOString());
  });
});

describe('firstFireTime', () => {
  it('counts a cron slot at the creation instant itself', () => {
    const schedule = parseScheduleExpression('cron(0 10 * * ? *)');
    expect(firstFireTime(schedule, 'UTC', new Date('2025-01-15T10:00:00Z'))?.toISOString()).toBe('2025-01-15T10:00:00.000Z');
  });

  it('fires a rate() at creation (the slot of its minute, so at once), then every period from that minute', () => {
    const schedule = parseScheduleExpression('rate(2 hours)');
    const created = new Date('2025-01-15T10:07:30Z');
    const first = firstFireTime(schedule, 'UTC', created);
    expect(first?.toISOString()).toBe('2025-01-15T10:07:00.000Z');
    expect(nextFireTime(schedule, 'UTC', first!, created)?.toISOString()).toBe('2025-01-15T12:07:00.000Z');
  });

  it('fires an at() later in the current minute at once, and refuses one earlier in it', () => {
    const now = new Date('2025-01-15T10:07:30Z');
    expect(firstFireTime(parseScheduleExpression('at(2025-01-15T10:07:45)'), 'UTC', now)?.toISOString()).toBe('2025-01-15T10:07:00.000Z');
    expect(firstFireTime(parseScheduleExpression('at(2025-01-15T10:07:30)'), 'UTC', now)?.toISOString()).toBe('2025-01-15T10:07:00.000Z');
    expect(firstFireTime(parseScheduleExpression('at(2025-01-15T10:07:15)'), 'UTC', now)).toBeNull();
  });

  it('fires a rate() created on a whole minute at that minute', () => {
    const schedule = parseScheduleExpression('rate(10 minutes)');
    const created = new Date('2025-01-15T10:00:00Z');
    expect(firstFireTime(schedule, 'UTC', created)?.toISOString()).toBe('2025-01-15T10:00:00.000Z');
  });

  it('restarts the rate() count from a resume anchor', () => {
    const schedule = parseScheduleExpression('rate(1 hour)');
    const resumed = new Date('2025-01-15T10:20:00Z');
    expect(firstFireTime(schedule, 'UTC', resumed)?.toISOString()).toBe('2025-01-15T10:20:00.000Z');
    expect(nextFireTime(schedule, 'UTC', new Date('2025-01-15T10:20:00Z'), resumed)?.toISOString()).toBe('2025-01-15T11:20:00.000Z');
  });
});

describe('nextFireTime walking a schedule', () => {
  it('runs every local 01:xx slot once across the New York fall-back', () => {
    const schedule = parseScheduleExpression('cron(0/20 1-2 * * ? *)');
    const fires: string[] = [];
    let after = new Date('2025-11-02T04:00:00Z');
    for (let next = nextFireTime(schedule, 'America/New_York', after, after); next && fires.length < 6; next = nextFireTime(schedule, 'America/New_York', after, after)) {
      fires.push(next.toISOString());
      after = next;
    }
    // 01:00, 01:20, 01:40 EDT once; then 02:00, 02:20, 02:40 EST.
    expect(fires).toEqual([
      '2025-11-02T05:00:00.000Z', '2025-11-02T05:20:00.000Z', '2025-11-02T05:40:00.000Z',
      '2025-11-02T07:00:00.000Z', '2025-11-02T07:20:00.000Z', '2025-11-02T07:40:00.000Z',
    ]);
  });

  it('returns only whole minutes', () => {
    const schedule = parseScheduleExpression('cron(* * * * ? *)');
    const next = nextFireTime(schedule, 'Asia/Kathmandu', new Date('2025-01-15T10:07:30.123Z'), new Date(0));
    expect(next?.toISOString()).toBe('2025-01-15T10:08:00.000Z');
  });
});
