import type { z } from 'zod';
import { InvalidRequestError } from '../errors.js';

/** One zod issue as a sentence that names the offending path, e.g. `config.tools.x.maxResults must be ...`. */
export function describeZodIssue(prefix: string, issue: z.core.$ZodIssue): string {
  const path = [prefix, ...issue.path.map(String)].join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((key) => `${path}.${key}`).join(', ');
    return `${keys} ${issue.keys.length === 1 ? 'is' : 'are'} not allowed here`;
  }
  return `${path} ${issue.message}`;
}

/** The 400 for a failed parse: its first issue, described. */
export function zodIssueError(prefix: string, error: z.ZodError, describe = describeZodIssue): InvalidRequestError {
  const issue = error.issues[0];
  return new InvalidRequestError(issue ? describe(prefix, issue) : `${prefix} is invalid`);
}
