/** Which of the two services a request went to. */
export type HarnessService = 'account' | 'agent';

/** What the service answered with a status of 400 or more: `{"error": {"code", "message", ...}}`. */
export interface HarnessErrorBody {
  code: string;
  message: string;
  [field: string]: unknown;
}

/**
 * The service answered an error. `code` is the contract's `error.code` (`not_found`,
 * `conflict`, `conversation_busy`, ...; `http_error` when the body was not in the error shape).
 */
export class HarnessApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** The whole `error` object the service sent (extra fields such as `eventId` included). */
  readonly body: HarnessErrorBody;
  readonly method: string;
  readonly path: string;
  /** `Retry-After` in seconds, for a 429 that sent one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(details: { status: number; body: HarnessErrorBody; method: string; path: string; retryAfterSeconds?: number }) {
    super(details.body.message);
    this.name = new.target.name;
    this.status = details.status;
    this.code = details.body.code;
    this.body = details.body;
    this.method = details.method;
    this.path = details.path;
    this.retryAfterSeconds = details.retryAfterSeconds;
  }
}

/** 409 `conversation_busy`: the conversation runs a turn and the request's `busy` mode is `reject`. */
export class ConversationBusyError extends HarnessApiError {
  /** The running run's event, when the service named it: `client.cancel(eventId)` or `client.async.wait(eventId)`. */
  readonly eventId: string | undefined;
  constructor(details: ConstructorParameters<typeof HarnessApiError>[0]) {
    super(details);
    this.eventId = typeof details.body.eventId === 'string' ? details.body.eventId : undefined;
  }
}

/** The error for an answer with status >= 400, from its text (the error shape when it is one). */
export function apiErrorFromAnswer(details: { status: number; text: string; method: string; path: string; retryAfter: string | null }): HarnessApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(details.text);
  } catch {
    parsed = undefined;
  }
  const error = (parsed as { error?: Partial<HarnessErrorBody> } | undefined)?.error;
  const excerpt = details.text.trim().slice(0, 120);
  const body: HarnessErrorBody =
    error && typeof error.message === 'string'
      ? { ...error, code: typeof error.code === 'string' ? error.code : 'http_error', message: error.message }
      : { code: 'http_error', message: `${details.method} ${details.path} failed${excerpt ? `: ${excerpt}` : ''}` };
  const retryAfterSeconds = details.retryAfter !== null && Number.isFinite(Number(details.retryAfter)) ? Number(details.retryAfter) : undefined;
  const fields = { status: details.status, body, method: details.method, path: details.path, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) };
  return body.code === 'conversation_busy' ? new ConversationBusyError(fields) : new HarnessApiError(fields);
}

/** The service could not be reached (refused, reset, no such host, a bad URL), so no answer came. */
export class HarnessConnectionError extends Error {
  readonly service: HarnessService;
  readonly baseUrl: string;
  /** The system error code when the runtime gives one (`ECONNREFUSED`, `ENOTFOUND`, ...; Node only). */
  readonly code: string | undefined;
  constructor(service: HarnessService, baseUrl: string, cause: unknown) {
    const code = systemErrorCode(cause);
    super(`cannot reach the ${service} service at ${baseUrl}${code ? ` (${code})` : ''}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = new.target.name;
    this.service = service;
    this.baseUrl = baseUrl;
    this.code = code;
  }
}

/** A success answer the client cannot read: not JSON, or not an event stream where one was asked for, or a stream cut short. */
export class HarnessResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Node's fetch wraps the socket error as `cause`; browsers give none. */
function systemErrorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
