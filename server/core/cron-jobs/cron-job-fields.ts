import { agentIdPattern } from '../agents/agent-id.js';
import { assertTimeZone, parseScheduleExpression, type Schedule } from '../schedule-expressions/index.js';
import { conversationKeyProblem } from '../conversations/conversation-key.js';
import { InvalidRequestError } from '../errors.js';

/**
 * Field checks for cron job writes. Each failure is a 400 whose message starts with the
 * field's name, as the schedule engine's do (`scheduleExpression: ...`).
 */
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u001f\u007f]/;

export const nameMaxLength = 128;
export const promptMaxLength = 100_000;

function text(value: unknown, field: string, maxLength: number, options: { allowLineBreaks?: boolean } = {}): string {
  if (typeof value !== 'string') throw new InvalidRequestError(`${field}: must be a string.`);
  if (value.trim().length === 0) throw new InvalidRequestError(`${field}: must not be empty.`);
  if (value.length > maxLength) throw new InvalidRequestError(`${field}: must be at most ${maxLength} characters (got ${value.length}).`);
  const checked = options.allowLineBreaks ? value.replace(/[\n\r\t]/g, ' ') : value;
  if (controlCharacters.test(checked)) throw new InvalidRequestError(`${field}: must not contain control characters.`);
  return value;
}

export function checkName(value: unknown): string {
  return text(value, 'name', nameMaxLength);
}

/** A prompt may span lines. */
export function checkPrompt(value: unknown): string {
  return text(value, 'prompt', promptMaxLength, { allowLineBreaks: true });
}

/** The same rule as every conversation key: a cron job runs only on a key chat accepts. */
export function checkConversationKey(value: unknown): string {
  const problem = conversationKeyProblem(value);
  if (problem !== undefined) throw new InvalidRequestError(`conversationKey: ${problem}.`);
  return value as string;
}

export function checkAgentIdFormat(value: unknown): string {
  if (typeof value !== 'string' || !agentIdPattern.test(value)) {
    throw new InvalidRequestError('agentId: must be 1-64 characters of A-Z, a-z, 0-9, "_" and "-", starting with a letter or digit.');
  }
  return value;
}

/** An IANA zone; `UTC` when omitted. */
export function checkTimeZone(value: unknown): string {
  if (value === undefined) return 'UTC';
  if (typeof value !== 'string') throw new InvalidRequestError('timezone: must be a string holding an IANA time zone name such as "Europe/Berlin".');
  assertTimeZone(value);
  return value;
}

export function checkScheduleExpression(value: unknown): { expression: string; schedule: Schedule } {
  if (typeof value !== 'string') throw new InvalidRequestError('scheduleExpression: must be a string such as "cron(0 9 ? * MON-FRI *)", "rate(5 minutes)" or "at(2030-01-01T09:00:00)".');
  return { expression: value, schedule: parseScheduleExpression(value) };
}
