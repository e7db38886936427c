import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import { parseScheduleExpression } from './parse-schedule-expression.js';

/** Invalid expressions and the reason the 400 must give (substring). */
const invalid: Array<[expression: string, reason: string]> = [
  ['', 'must be a non-empty'],
  ['every 5 minutes', 'must be cron(...), rate(...) or at(...)'],
  ['cron(0 10 * * ? *', 'must be cron(...), rate(...) or at(...)'],
  ['cron(0 10 * * ?)', 'exactly 6 fields'],
  ['cron(0 0 10 * * ? *)', 'day-of-week year), got 7'],
  ['cron(60 10 * * ? *)', 'the minutes field "60" is invalid: 60 is outside 0-59'],
  ['cron(0 24 * * ? *)', 'the hours field "24" is invalid: 24 is outside 0-23'],
  ['cron(0 10 0 * ? *)', 'the day-of-month field "0" is invalid: 0 is outside 1-31'],
  ['cron(0 10 32W * ? *)', 'the day-of-month field "32W" is invalid: 32 is outside 1-31'],
  ['cron(0 10 * 13 ? *)', 'the month field "13" is invalid: 13 is outside 1-12'],
  ['cron(0 10 * JAN-FOO ? *)', 'the month field "JAN-FOO" is invalid: "FOO" is not'],
  ['cron(0 10 ? * 0 *)', 'the day-of-week field "0" is invalid: 0 is outside 1-7'],
  ['cron(0 10 ? * 8 *)', 'the day-of-week field "8" is invalid: 8 is outside 1-7'],
  ['cron(0 10 * * ? 1969)', 'the year field "1969" is invalid: 1969 is outside 1970-2199'],
  ['cron(0 10 * * ? 2200)', 'the year field "2200" is invalid: 2200 is outside 1970-2199'],
  ['cron(0 10 * * * *)', 'day-of-month and day-of-week cannot both be specified; one of them must be "?"'],
  ['cron(0 10 1 * MON *)', 'day-of-month and day-of-week cannot both be specified; one of them must be "?"'],
  ['cron(0 10 ? * ? *)', 'day-of-month and day-of-week cannot both be "?"'],
  ['cron(0 10 ? * 3#1,6#3 *)', 'the day-of-week field "3#1,6#3" is invalid: "#" must be the whole field'],
  ['cron(0 10 ? * 3#6 *)', 'the occurrence after "#" must be 1-5'],
  ['cron(0 10 ? * MON/2 *)', 'the day-of-week field "MON/2" is invalid: "/" is not allowed in this field'],
  ['cron(0 10 ? * 2W *)', '"W" is only allowed in day-of-month'],
  ['cron(0/0 * * * ? *)', 'the step "0" must be a positive whole number'],
  ['cron(0/61 * * * ? *)', 'the step 61 is larger than'],
  ['cron(5-1 * * * ? *)', 'the range 5-1 runs backwards'],
  ['cron(0 10 1,,2 * ? *)', 'a list has an empty item'],
  ['cron(0 10 L-3 * ? *)', '"L", "LW" and "nW" must stand alone'],
  ['cron(0 10 1,L * ? *)', '"L", "LW" and "nW" must stand alone'],
  ['cron(L * * * ? *)', 'the minutes field "L" is invalid: "L" is only allowed in day-of-month and day-of-week'],
  ['cron(0 ? * * ? *)', 'the hours field "?" is invalid: "?" is only allowed'],
  ['cron(0 10 1#2 * ? *)', '"#" is only allowed in day-of-week'],
  ['cron(0 10 * * ? abc)', 'the year field "abc" is invalid: "abc" is not a number 1970-2199'],
  ['rate(0 minutes)', 'the rate value "0" must be a positive whole number'],
  ['rate(1.5 hours)', 'the rate value "1.5" must be a positive whole number'],
  ['rate(-5 minutes)', 'must be a positive whole number'],
  ['rate(1 minutes)', 'a rate of 1 takes the singular unit "minute"'],
  ['rate(1 days)', 'a rate of 1 takes the singular unit "day"'],
  ['rate(5 minute)', 'a rate of 5 takes the plural unit "minutes"'],
  ['rate(5 seconds)', 'the rate unit "seconds" must be minute(s), hour(s) or day(s)'],
  ['rate(5)', 'rate() needs a value and a unit'],
  ['at(2025-02-30T10:00:00)', 'at() date 2025-02-30 does not exist'],
  ['at(2025-01-20 10:00:00)', 'at() needs a local date and time yyyy-mm-ddThh:mm:ss'],
  ['at(2025-01-20T10:00:00Z)', 'at() needs a local date and time yyyy-mm-ddThh:mm:ss'],
  ['at(2025-01-20T24:00:00)', 'at() time 24:00:00 is not a valid hh:mm:ss'],
];

describe('parseScheduleExpression rejects', () => {
  it.each(invalid)('%s', (expression, reason) => {
    let caught: unknown;
    try {
      parseScheduleExpression(expression);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidRequestError);
    const message = (caught as InvalidRequestError).message;
    expect(message.startsWith('scheduleExpression: ')).toBe(true);
    expect(message).toContain(reason);
    expect((caught as InvalidRequestError).status).toBe(400);
  });
});

describe('parseScheduleExpression accepts', () => {
  it('parses a cron expression into its fields', () => {
    expect(parseScheduleExpression(' cron(0/15 9-17 ? JAN,MAR MON-FRI 2025-2027) ')).toEqual({
      kind: 'cron',
      expression: 'cron(0/15 9-17 ? JAN,MAR MON-FRI 2025-2027)',
      minutes: [0, 15, 30, 45],
      hours: [9, 10, 11, 12, 13, 14, 15, 16, 17],
      months: [1, 3],
      years: [2025, 2026, 2027],
      days: { kind: 'days-of-week', weekdays: [2, 3, 4, 5, 6] },
    });
  });

  it.each([
    ['cron(0 0 L * ? *)', { kind: 'last-day-of-month' }],
    ['cron(0 0 LW * ? *)', { kind: 'last-weekday-of-month' }],
    ['cron(0 0 15W * ? *)', { kind: 'nearest-weekday', day: 15 }],
    ['cron(0 0 ? * 5L *)', { kind: 'last-weekday-n-of-month', weekday: 5 }],
    ['cron(0 0 ? * FRI#3 *)', { kind: 'nth-weekday-of-month', weekday: 6, nth: 3 }],
    ['cron(0 0 ? * L *)', { kind: 'days-of-week', weekdays: [7] }],
    ['cron(0 0 1/10 * ? *)', { kind: 'days-of-month', days: [1, 11, 21, 31] }],
  ])('%s', (expression, days) => {
    const schedule = parseScheduleExpression(expression);
    expect(schedule.kind === 'cron' && schedule.days).toEqual(days);
  });

  it('parses rate() singular and plural units', () => {
    expect(parseScheduleExpression('rate(1 minute)')).toMatchObject({ kind: 'rate', value: 1, unit: 'minute', periodMinutes: 1 });
    expect(parseScheduleExpression('rate(2 hours)')).toMatchObject({ kind: 'rate', value: 2, unit: 'hour', periodMinutes: 120 });
    expect(parseScheduleExpression('rate(7 days)')).toMatchObject({ kind: 'rate', value: 7, unit: 'day', periodMinutes: 10080 });
  });

  it('parses at() as a wall-clock time', () => {
    expect(parseScheduleExpression('at(2025-06-01T09:30:15)')).toEqual({
      kind: 'at',
      expression: 'at(2025-06-01T09:30:15)',
      localTime: { year: 2025, month: 6, day: 1, hour: 9, minute: 30, second: 15 },
    });
  });
});
