import { InvalidRequestError } from '../errors.js';
import { parseAtExpression } from './parse-at-expression.js';
import { parseCronExpression } from './parse-cron-expression.js';
import { parseRateExpression } from './parse-rate-expression.js';
import type { Schedule } from './schedule.js';

/**
 * Parses and validates an EventBridge Scheduler expression: `cron(...)`, `rate(...)` or
 * `at(...)`. Throws `InvalidRequestError` whose message names `scheduleExpression` and
 * says precisely what is wrong.
 */
export function parseScheduleExpression(expression: string): Schedule {
  if (typeof expression !== 'string' || expression.trim() === '') {
    throw new InvalidRequestError('scheduleExpression: must be a non-empty cron(...), rate(...) or at(...) expression.');
  }
  const trimmed = expression.trim();
  const match = /^(cron|rate|at)\((.*)\)$/s.exec(trimmed);
  if (!match?.[1] || match[2] === undefined) {
    throw new InvalidRequestError(`scheduleExpression: "${trimmed}" must be cron(...), rate(...) or at(...).`);
  }
  const [, kind, inside] = match;
  if (kind === 'cron') return parseCronExpression(trimmed, inside);
  if (kind === 'rate') return parseRateExpression(trimmed, inside);
  return parseAtExpression(trimmed, inside);
}
