import { InvalidRequestError } from '../errors.js';
import type { AtSchedule } from './schedule.js';

/**
 * Parses the inside of `at(...)`: `yyyy-mm-ddThh:mm:ss`, a wall-clock time in the job's
 * zone, with no offset or `Z` (the zone is the job's `timezone`).
 */
export function parseAtExpression(expression: string, inside: string): AtSchedule {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(inside.trim());
  if (!match) {
    throw new InvalidRequestError(
      `scheduleExpression: at() needs a local date and time yyyy-mm-ddThh:mm:ss (no offset; the zone is the job's timezone), got "${inside}".`,
    );
  }
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) {
    throw new InvalidRequestError(`scheduleExpression: at() date ${inside.trim().slice(0, 10)} does not exist.`);
  }
  if (hour > 23 || minute > 59 || second > 59) {
    throw new InvalidRequestError(`scheduleExpression: at() time ${inside.trim().slice(11)} is not a valid hh:mm:ss.`);
  }
  return { kind: 'at', expression, localTime: { year, month, day, hour, minute, second } };
}
