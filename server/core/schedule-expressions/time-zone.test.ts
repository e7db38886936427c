import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import { assertTimeZone, instantOfWallClockMinute, wallClockAt } from './time-zone.js';

describe('assertTimeZone', () => {
  it.each(['UTC', 'Asia/Ho_Chi_Minh', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata'])('accepts %s', (timezone) => {
    expect(() => assertTimeZone(timezone)).not.toThrow();
  });

  it.each(['Mars/Olympus', '', '   ', '+05:00', 'Europe/Atlantis'])('rejects "%s" naming timezone', (timezone) => {
    expect(() => assertTimeZone(timezone)).toThrow(InvalidRequestError);
    expect(() => assertTimeZone(timezone)).toThrow(/^timezone: /);
  });
});

describe('wall clock conversion', () => {
  it('reads the wall clock in a zone', () => {
    expect(wallClockAt(Date.parse('2025-07-01T12:34:56Z'), 'Europe/Berlin')).toEqual({
      year: 2025, month: 7, day: 1, hour: 14, minute: 34, second: 56,
    });
  });

  it('has no instant for a minute skipped by spring forward', () => {
    expect(instantOfWallClockMinute({ year: 2025, month: 3, day: 9, hour: 2, minute: 0 }, 'America/New_York')).toBeNull();
    expect(instantOfWallClockMinute({ year: 2025, month: 3, day: 30, hour: 2, minute: 59 }, 'Europe/Berlin')).toBeNull();
  });

  it('takes the first occurrence of a minute repeated by fall back', () => {
    expect(instantOfWallClockMinute({ year: 2025, month: 11, day: 2, hour: 1, minute: 0 }, 'America/New_York'))
      .toBe(Date.parse('2025-11-02T05:00:00Z'));
    expect(instantOfWallClockMinute({ year: 2025, month: 10, day: 26, hour: 2, minute: 0 }, 'Europe/Berlin'))
      .toBe(Date.parse('2025-10-26T00:00:00Z'));
  });
});
