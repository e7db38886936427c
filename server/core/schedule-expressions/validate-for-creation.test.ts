import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import { parseScheduleExpression } from './parse-schedule-expression.js';
import { validateForCreation } from './validate-for-creation.js';

const now = new Date('2025-01-15T10:07:30Z');

function reasonFor(expression: string, timezone: string): string | undefined {
  try {
    validateForCreation(parseScheduleExpression(expression), timezone, now);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestError);
    return (error as Error).message;
  }
}

describe('validateForCreation', () => {
  it('accepts schedules with a future fire time', () => {
    expect(reasonFor('cron(0 9 ? * MON-FRI *)', 'Europe/Berlin')).toBeUndefined();
    expect(reasonFor('rate(5 minutes)', 'UTC')).toBeUndefined();
    expect(reasonFor('at(2025-01-15T18:00:00)', 'Asia/Ho_Chi_Minh')).toBeUndefined();
  });

  it('rejects an at() in the past, in the job zone', () => {
    // 12:00 in New York is 17:00 UTC: still ahead. 12:00 in Saigon was 05:00 UTC: past.
    expect(reasonFor('at(2025-01-15T12:00:00)', 'America/New_York')).toBeUndefined();
    expect(reasonFor('at(2025-01-15T12:00:00)', 'Asia/Ho_Chi_Minh')).toMatch(/^scheduleExpression: .*is in the past/);
  });

  it('accepts an at() later in the current minute (it fires at once), and refuses one earlier in it', () => {
    expect(reasonFor('at(2025-01-15T10:07:45)', 'UTC')).toBeUndefined();
    expect(reasonFor('at(2025-01-15T10:07:15)', 'UTC')).toMatch(/^scheduleExpression: .*is in the past/);
  });

  it('rejects an at() on a local time the clocks skip', () => {
    expect(reasonFor('at(2025-03-09T02:30:00)', 'America/New_York')).toContain('does not exist in America/New_York');
  });

  it('rejects a cron expression that never fires again', () => {
    expect(reasonFor('cron(0 0 1 1 ? 2020-2024)', 'UTC')).toMatch(/^scheduleExpression: .*never fires/);
    expect(reasonFor('cron(0 0 30 2 ? *)', 'UTC')).toContain('never fires');
  });

  it('rejects an unknown zone naming timezone', () => {
    expect(reasonFor('rate(5 minutes)', 'Mars/Olympus')).toMatch(/^timezone: /);
  });
});
