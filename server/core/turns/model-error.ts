import { APICallError, RetryError } from 'ai';
import { UpstreamError } from '../errors.js';

/** Replace each secret that occurs in `text` (a provider may echo a key back in an error). */
export function scrubSecrets(text: string, secrets: string[]): string {
  let scrubbed = text;
  for (const secret of secrets) if (secret.length >= 4) scrubbed = scrubbed.split(secret).join('[redacted]');
  return scrubbed;
}

/** A one-line description of a failed model call, safe to show a client. */
export function describeModelError(error: unknown, secrets: string[]): string {
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  // The model fetch's own limits (answer too large or too slow): their message says which.
  if (APICallError.isInstance(cause) && cause.cause instanceof UpstreamError) return scrubSecrets(`The model call failed: ${cause.cause.message}`, secrets);
  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode ? `HTTP ${cause.statusCode}` : 'no answer';
    return scrubSecrets(`The model call failed (${status}): ${cause.message}`, secrets);
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return scrubSecrets(`The model call failed: ${message}`, secrets);
}

/** A failed model call thrown out of the model's stream (the SDK wraps a body that broke off as an `APICallError`). */
export function isModelStreamFailure(error: unknown): boolean {
  return APICallError.isInstance(error);
}
