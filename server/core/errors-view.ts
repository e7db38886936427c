import { HarnessError, RateLimitedError } from './errors.js';

/**
 * How an error is answered, whatever the transport: HTTP sends it as the status and
 * `{"error": {code, message, ...details}}`, NATS as the failed finish of the reply stream.
 */
export interface ErrorView {
  /** The HTTP status of the kind (NATS has none, but 4xx and 5xx tell a client's mistake from the service's). */
  status: number;
  code: string;
  message: string;
  /** Fields the answer carries beside `code` and `message` (`eventId` of `conversation_busy`). */
  details?: Record<string, unknown>;
  /** With `rate_limited`: when to try again (HTTP's `Retry-After`). */
  retryAfterSeconds?: number;
  /** Not a domain error: a bug. It is logged in full, and the answer says nothing of it. */
  unexpected: boolean;
}

/** The whole answer to an unexpected error: its message and stack stay in the log. */
export const internalErrorMessage = 'An internal error occurred; it has been logged.';

/** The one mapping from an error to its answer: a domain error says its kind, anything else is `internal`. */
export function viewError(error: unknown): ErrorView {
  if (!(error instanceof HarnessError)) return { status: 500, code: 'internal', message: internalErrorMessage, unexpected: true };
  const { details } = error;
  return {
    status: error.status,
    code: error.code,
    message: error.message,
    ...(details ? { details } : {}),
    ...(error instanceof RateLimitedError ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
    unexpected: false,
  };
}
