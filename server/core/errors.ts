/**
 * Domain errors. Each kind has a stable `code` and the HTTP status it maps to; the HTTP
 * layer turns them into `{"error": {"code", "message"}}` in one place. The core never
 * builds HTTP responses itself.
 */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'conversation_busy'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'upstream_error'
  | 'internal'
  | 'idempotency_key_reused'
  | 'idempotency_key_in_use';

export class HarnessError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  constructor(code: ErrorCode, status: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
  }

  /** Fields the error's answer carries beside `code` and `message` (none by default). */
  get details(): Record<string, unknown> | undefined {
    return undefined;
  }
}

/** The client sent something invalid; the message names the offending field. */
export class InvalidRequestError extends HarnessError {
  constructor(message: string) {
    super('invalid_request', 400, message);
  }
}

/** No bearer, or a bearer that matches nothing. */
export class UnauthorizedError extends HarnessError {
  constructor(message = 'A valid Authorization: Bearer <secret> header is required.') {
    super('unauthorized', 401, message);
  }
}

/** A valid request the service's settings do not allow this caller (sign-up closed to the admin). */
export class ForbiddenError extends HarnessError {
  constructor(message: string) {
    super('forbidden', 403, message);
  }
}

/** Unknown, or owned by another account: the two are never told apart. */
export class NotFoundError extends HarnessError {
  constructor(message = 'Not found.') {
    super('not_found', 404, message);
  }
}

/** The request is valid but contradicts the current state (taken name, settled row...). */
export class ConflictError extends HarnessError {
  constructor(message: string) {
    super('conflict', 409, message);
  }
}

/** The model or an outside service failed: the one expected 5xx. */
export class UpstreamError extends HarnessError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('upstream_error', 502, message, options);
  }
}

/** Too many requests; `retryAfterSeconds` becomes the Retry-After header. */
export class RateLimitedError extends HarnessError {
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super('rate_limited', 429, message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * A user message met a running turn of its conversation with the busy mode `reject`: 409,
 * naming the running run's `eventId` (in the message and as `error.eventId`).
 */
export class ConversationBusyError extends HarnessError {
  readonly eventId: string;
  constructor(conversationKey: string, eventId: string, then = 'wait for it to end, cancel it, or send with another busy mode') {
    super('conversation_busy', 409, `Conversation "${conversationKey}" has a turn running (event ${eventId}); ${then}.`);
    this.eventId = eventId;
  }

  override get details(): Record<string, unknown> {
    return { eventId: this.eventId };
  }
}

/** A conditional write found a newer version than the one it was based on. */
export class VersionConflictError extends HarnessError {
  constructor(what: string) {
    super('conflict', 409, `${what} was changed concurrently; retry the request.`);
  }
}

/**
 * A turn that failed inside the service (not the model's fault, not the client's). Its
 * message is the one the turn stored, which the status row and the stream show as well.
 */
export class TurnFailedError extends HarnessError {
  constructor(message: string) {
    super('internal', 500, message);
  }
}

/** A body sent in a media type the route does not take. */
export class UnsupportedMediaTypeError extends HarnessError {
  constructor(message: string) {
    super('unsupported_media_type', 415, message);
  }
}

/** A body or a message larger than a configured limit. */
export class PayloadTooLargeError extends HarnessError {
  constructor(message: string) {
    super('payload_too_large', 413, message);
  }
}

/** An `Idempotency-Key` already used, within its 24 hours, for a request with another body or path: nothing was done. */
export class IdempotencyKeyReusedError extends HarnessError {
  constructor(message = 'This Idempotency-Key was already used for a different request (another body or path); use a new key for a new request.') {
    super('idempotency_key_reused', 422, message);
  }
}

/** The first request with this `Idempotency-Key` is still running and did not finish within the wait: retry later. */
export class IdempotencyKeyInUseError extends HarnessError {
  constructor(message = 'A request with this Idempotency-Key is still being processed; retry it later to get its answer.') {
    super('idempotency_key_in_use', 409, message);
  }
}
