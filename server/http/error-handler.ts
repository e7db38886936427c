import type { FastifyError, FastifyInstance } from 'fastify';
import { viewError } from '../core/errors-view.js';

export interface ErrorBody {
  error: { code: string; message: string };
}

export function errorBody(code: string, message: string, details?: Record<string, unknown>): ErrorBody {
  return { error: { ...details, code, message } };
}

/** Fastify's own errors for client mistakes, mapped to the contract's codes. */
const fastifyClientErrors: Record<string, { status: number; code: string; message?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'payload_too_large', message: 'The request body is larger than the limit of 1 MiB.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type', message: 'Send the body as application/json.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'invalid_request', message: 'The Content-Length header does not match the body.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'invalid_request', message: 'body must be a JSON value; the request sent Content-Type application/json with an empty body.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'invalid_request', message: 'body is not valid JSON.' },
};

function describeValidation(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const context = error.validationContext ?? 'body';
  const path = first.instancePath.replace(/^\//, '').replaceAll('/', '.');
  if (first.keyword === 'required') {
    const missing = (first.params as { missingProperty?: string }).missingProperty ?? '';
    return `${[context, path, missing].filter(Boolean).join('.')} is required`;
  }
  if (first.keyword === 'additionalProperties') {
    const extra = (first.params as { additionalProperty?: string }).additionalProperty ?? '';
    return `${[context, path, extra].filter(Boolean).join('.')} is not allowed here`;
  }
  return `${[context, path].filter(Boolean).join('.')} ${first.message ?? 'is invalid'}`;
}

/**
 * One place maps every error to `{"error": {"code", "message"}}`: Fastify's own client errors
 * here, domain errors and bugs through `viewError` (server/core/errors-view.ts), which NATS
 * shares. An unexpected error never carries its own message or stack: those go to the log.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.validation) {
      return reply.status(400).send(errorBody('invalid_request', describeValidation(error)));
    }
    const known = error.code ? fastifyClientErrors[error.code] : undefined;
    if (known) return reply.status(known.status).send(errorBody(known.code, known.message ?? error.message));
    if (error instanceof SyntaxError || error.code?.startsWith('FST_ERR_CTP')) {
      return reply.status(400).send(errorBody('invalid_request', 'body is not valid JSON.'));
    }
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.status(error.statusCode).send(errorBody('invalid_request', error.message));
    }
    // Domain errors and bugs: the mapping NATS answers with too.
    const view = viewError(error);
    if (view.retryAfterSeconds !== undefined) void reply.header('retry-after', String(view.retryAfterSeconds));
    if (view.unexpected) request.log.error({ err: error }, 'unexpected error');
    else if (view.status >= 500) request.log.error({ err: error, code: view.code }, 'request failed');
    return reply.status(view.status).send(errorBody(view.code, view.message, view.details));
  });
  app.setNotFoundHandler((request, reply) => {
    return reply.status(404).send(errorBody('not_found', `No route ${request.method} ${request.url.split('?')[0]}.`));
  });
}
