import type { FastifyRequest } from 'fastify';
import { parseBearerToken } from '../core/auth/bearer-token.js';

/** The token of the request's `Authorization: Bearer <token>` header, if there is one (the parsing NATS shares). */
export function bearerToken(request: FastifyRequest): string | undefined {
  return parseBearerToken(request.headers.authorization);
}
