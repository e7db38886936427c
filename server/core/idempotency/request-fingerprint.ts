import { createHash } from 'node:crypto';
import { InvalidRequestError } from '../errors.js';

/** The header's name, as clients send it. */
export const idempotencyKeyHeader = 'Idempotency-Key';

const keyPattern = /^[\x20-\x7E]{1,255}$/;

/**
 * The `Idempotency-Key` header's value: undefined when the request has none; a 400 naming the
 * header when it is sent twice, empty, longer than 255 characters or not printable ASCII.
 */
export function parseIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !keyPattern.test(value)) {
    throw new InvalidRequestError(`${idempotencyKeyHeader} must be one header of 1-255 printable ASCII characters.`);
  }
  return value;
}

/** JSON with every object's keys sorted, so two bodies that parse the same are written the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined && typeof item !== 'function')
    .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

/**
 * What a retry must match: sha256 of the method, the path and the canonical form of the parsed
 * body. Only the hash is stored, never the body.
 */
export function requestFingerprint(request: { method: string; path: string; body: unknown }): string {
  return createHash('sha256').update(canonicalJson({ method: request.method.toUpperCase(), path: request.path, body: request.body ?? null })).digest('hex');
}
