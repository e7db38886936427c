import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { zodIssueError } from './zod-issue.js';

/**
 * What the validators of the config sections (`config.sandbox`, `config.workspace`,
 * `config.subagent`, `config.skills`) share, so each states a limit or a shape error the
 * same way: the message names the offending path, e.g.
 * `config.sandbox.timeoutMs must be an integer from 100 to 600000`.
 */

/** A whole number within bounds, with one message for every way of missing them. */
export function integerFrom(minimum: number, maximum: number) {
  const message = `must be an integer from ${minimum} to ${maximum}`;
  return z.number({ error: message }).int(message).min(minimum, message).max(maximum, message);
}

/** Parses `value`, or throws an InvalidRequestError naming the first offending path under `prefix`. */
export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, prefix: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw zodIssueError(prefix, parsed.error);
  return parsed.data;
}

/** `value` as a plain object, or an InvalidRequestError saying what `path` should hold. */
export function requireObject(value: unknown, path: string, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidRequestError(`${path} must be an object (${what})`);
  }
  return value as Record<string, unknown>;
}
