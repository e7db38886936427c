/** The one error shape, as a shared schema every route's error responses point to. */

/** The id routes `$ref` (`ErrorResponse#`); the document names the component after it. */
export const errorSchemaId = 'ErrorResponse';

/**
 * `{"error": {"code", "message"}}`. The inner object stays open so a field the error handler
 * adds later is serialized rather than dropped by the response serializer.
 */
export const errorSchema = {
  $id: errorSchemaId,
  type: 'object',
  description: 'Every error: a stable snake_case code and a human sentence (for a 400, naming the offending field).',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: true,
      properties: {
        code: {
          type: 'string',
          enum: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'conversation_busy', 'payload_too_large', 'unsupported_media_type', 'rate_limited', 'upstream_error', 'internal', 'idempotency_key_reused', 'idempotency_key_in_use'],
        },
        message: { type: 'string' },
        eventId: { type: 'string', description: 'With `conversation_busy`: the run that is running on the conversation.' },
      },
    },
  },
} as const;

const descriptions = {
  400: '`invalid_request`: the body, a path parameter or the query is not valid; the message names the field.',
  401: '`unauthorized`: no bearer, or one that is not a valid secret for this route (a disabled account counts as invalid).',
  403: '`forbidden`: the caller may not do this (sign-up closed to all but the admin).',
  404: '`not_found`: no such resource, or one that belongs to another account (never revealed).',
  409: '`conflict`: the resource is in a state that refuses this request, or was changed concurrently (retry); `conversation_busy` (with `error.eventId`): a turn runs on the conversation and the busy mode is `reject`.',
  413: '`payload_too_large`: the body is larger than the limit (1 MiB for JSON).',
  415: '`unsupported_media_type`: the body is not of the media type this route reads.',
  422: '`idempotency_key_reused`: the `Idempotency-Key` was used for another request (another body or path) within its 24 hours; nothing was done.',
  429: '`rate_limited`: the budget is spent; retry after `Retry-After` seconds.',
  500: '`internal`: a bug; it has been logged, and the message says nothing more.',
  502: '`upstream_error`: the model or an outside service failed.',
} as const;

export type ErrorStatus = keyof typeof descriptions;

/** One response entry: the shared shape with what this status means (on this route, when `description` is given). */
export function errorResponse(status: ErrorStatus, description: string = descriptions[status]) {
  const entry = { description, $ref: `${errorSchemaId}#` };
  if (status !== 429) return entry;
  return { ...entry, headers: { 'retry-after': { type: 'string', description: 'Seconds to wait before retrying.' } } };
}

/** Response schemas for the error statuses a route can answer, keyed by status. */
export function errorResponses(...statuses: ErrorStatus[]): Record<number, ReturnType<typeof errorResponse>> {
  return Object.fromEntries(statuses.map((status) => [status, errorResponse(status)]));
}
