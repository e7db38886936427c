import { describe, expect, it } from 'vitest';
import { addDays, daysInRange, monthsInRange, nextUtcMidnight, parseUsageDay, secondsUntilNextUtcDay, utcDay } from './usage-day.js';
import { resolveUsageRange } from './usage-range.js';

describe('UTC days', () => {
  it('puts a moment on its UTC day, whatever the time zone it was written in', () => {
    expect(utcDay(new Date('2025-03-31T23:59:59.999Z'))).toBe('2025-03-31');
    expect(utcDay(new Date('2025-04-01T00:00:00.000Z'))).toBe('2025-04-01');
    expect(utcDay(new Date('2025-04-01T01:30:00+02:00'))).toBe('2025-03-31');
  });

  it('counts the seconds to the next UTC midnight, at least one', () => {
    expect(secondsUntilNextUtcDay(new Date('2025-03-31T23:59:59.500Z'))).toBe(1);
    expect(secondsUntilNextUtcDay(new Date('2025-03-31T00:00:00.000Z'))).toBe(86_400);
    expect(secondsUntilNextUtcDay(new Date('2024-12-31T12:00:00.000Z'))).toBe(43_200);
    expect(nextUtcMidnight(new Date('2024-12-31T12:00:00.000Z'))).toBe('2025-01-01T00:00:00.000Z');
  });

  it('walks days and months across month, year and leap-day boundaries', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
    expect(addDays('2025-01-01', -1)).toBe('2024-12-31');
    expect(daysInRange('2024-01-01', '2024-12-31')).toBe(366);
    expect(daysInRange('2024-01-02', '2024-01-01')).toBe(0);
    expect(monthsInRange('2024-11-15', '2025-02-01')).toEqual(['2024-11', '2024-12', '2025-01', '2025-02']);
    expect(monthsInRange('2024-11-15', '2024-11-16')).toEqual(['2024-11']);
  });

  it('parses a query date or date-time, and names the field of a bad one', () => {
    expect(parseUsageDay('2024-02-29', 'from')).toBe('2024-02-29');
    expect(parseUsageDay('2024-03-01T01:00:00+02:00', 'from')).toBe('2024-02-29');
    expect(() => parseUsageDay('2023-02-29', 'from')).toThrow('from must be an ISO date');
    expect(() => parseUsageDay('yesterday', 'to')).toThrow('to must be an ISO date');
    expect(() => parseUsageDay('2024-1-1', 'to')).toThrow('to must be an ISO date');
  });
});

describe('resolveUsageRange', () => {
  const now = new Date('2025-03-10T08:00:00Z');

  it('defaults to the last 30 days, today included', () => {
    expect(resolveUsageRange({}, now)).toEqual({ from: '2025-02-09', to: '2025-03-10' });
    expect(resolveUsageRange({ to: '2025-01-31' }, now)).toEqual({ from: '2025-01-02', to: '2025-01-31' });
    expect(resolveUsageRange({ from: '2025-03-01' }, now)).toEqual({ from: '2025-03-01', to: '2025-03-10' });
  });

  it('refuses from after to, and more than 366 days', () => {
    expect(() => resolveUsageRange({ from: '2025-03-02', to: '2025-03-01' }, now)).toThrow('from (2025-03-02) must not be after to (2025-03-01)');
    expect(resolveUsageRange({ from: '2024-01-01', to: '2024-12-31' }, now)).toEqual({ from: '2024-01-01', to: '2024-12-31' });
    expect(() => resolveUsageRange({ from: '2024-01-01', to: '2025-01-01' }, now)).toThrow('covers 367 days; the limit is 366');
  });
});
