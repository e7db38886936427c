import { InvalidRequestError } from '../errors.js';
import type { RateSchedule } from './schedule.js';

const minutesPerUnit = { minute: 1, hour: 60, day: 1440 } as const;

/** Keeps `value * period` far inside what a Date can hold (about 19 years of minutes). */
const maximumPeriodMinutes = 10_000_000;

/**
 * Parses the inside of `rate(...)`: `value unit`, a positive whole number and
 * `minute|hour|day` when the value is 1, `minutes|hours|days` otherwise (EventBridge
 * rejects `rate(1 minutes)` and `rate(5 minute)`).
 */
export function parseRateExpression(expression: string, inside: string): RateSchedule {
  const parts = inside.trim().split(/\s+/);
  if (parts.length !== 2) {
    throw new InvalidRequestError('scheduleExpression: rate() needs a value and a unit, like rate(5 minutes) or rate(1 hour).');
  }
  const [valueText = '', unitText = ''] = parts;
  if (!/^\d+$/.test(valueText) || Number(valueText) < 1) {
    throw new InvalidRequestError(`scheduleExpression: the rate value "${valueText}" must be a positive whole number.`);
  }
  const value = Number(valueText);
  const singular = unitText.replace(/s$/, '');
  if (!(singular in minutesPerUnit)) {
    throw new InvalidRequestError(`scheduleExpression: the rate unit "${unitText}" must be minute(s), hour(s) or day(s).`);
  }
  const unit = singular as keyof typeof minutesPerUnit;
  if (value === 1 && unitText !== unit) {
    throw new InvalidRequestError(`scheduleExpression: a rate of 1 takes the singular unit "${unit}", not "${unitText}".`);
  }
  if (value > 1 && unitText === unit) {
    throw new InvalidRequestError(`scheduleExpression: a rate of ${value} takes the plural unit "${unit}s", not "${unitText}".`);
  }
  const periodMinutes = value * minutesPerUnit[unit];
  if (periodMinutes > maximumPeriodMinutes) {
    throw new InvalidRequestError(`scheduleExpression: the rate period must be at most ${maximumPeriodMinutes} minutes.`);
  }
  return { kind: 'rate', expression, value, unit, periodMinutes };
}
