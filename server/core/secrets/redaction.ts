import { InvalidRequestError } from '../errors.js';
import { isRecord } from '../is-record.js';

/** What a secret looks like in every response. */
export interface RedactedSecret {
  redacted: true;
  last4?: string;
}

/**
 * Which config fields are secrets (encrypted at rest, redacted in every response, never taken
 * on the CLI's command line): `apiKey`, Bedrock's `accessKeyId` and `secretAccessKey`, or a
 * name ending in `Token` or `Secret` (any case). `publicKey` is not secret.
 */
export function isSecretFieldName(name: string): boolean {
  const lower = name.toLowerCase();
  if (lower === 'publickey') return false;
  return lower === 'apikey' || lower === 'accesskeyid' || lower === 'secretaccesskey' || lower.endsWith('token') || lower.endsWith('secret');
}

/**
 * Fields whose every value is a secret, whatever its name: `headers` (an MCP server's request
 * headers carry bearer tokens and API keys under names like `Authorization` or `X-Api-Key`).
 */
export function isSecretMapName(name: string): boolean {
  return name === 'headers';
}

function redactMap(value: unknown): unknown {
  if (!isRecord(value)) return redactSecrets(value);
  return Object.fromEntries(Object.entries(value).map(([name, field]) => [name, typeof field === 'string' ? redactSecret(field) : redactSecrets(field)]));
}

export function isRedactedSecret(value: unknown): value is RedactedSecret {
  return typeof value === 'object' && value !== null && (value as { redacted?: unknown }).redacted === true;
}

export function redactSecret(value: string): RedactedSecret {
  return value.length >= 12 ? { redacted: true, last4: value.slice(-4) } : { redacted: true };
}

/** A deep copy with every secret field's string value replaced by its redacted form. */
export function redactSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item)) as T;
  if (!isRecord(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) {
    if (isSecretMapName(name)) copy[name] = redactMap(field);
    else copy[name] = isSecretFieldName(name) && typeof field === 'string' ? redactSecret(field) : redactSecrets(field);
  }
  return copy as T;
}

/**
 * Replace redacted placeholders in an incoming config with the stored secrets at the same
 * path, so a client can send back what it read. A placeholder with nothing stored behind it
 * is a 400 naming the path.
 */
export function restoreRedactedSecrets(incoming: unknown, stored: unknown, path = 'config'): unknown {
  if (isRedactedSecret(incoming)) {
    if (typeof stored === 'string') return stored;
    throw new InvalidRequestError(`${path} is a redacted placeholder but no value is stored there; send the secret itself.`);
  }
  if (Array.isArray(incoming)) {
    return incoming.map((item, index) => restoreRedactedSecrets(item, Array.isArray(stored) ? stored[index] : undefined, `${path}.${index}`));
  }
  if (!isRecord(incoming)) return incoming;
  const storedObject = isRecord(stored) ? stored : {};
  const restored: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(incoming)) {
    restored[name] = restoreRedactedSecrets(field, storedObject[name], `${path}.${name}`);
  }
  return restored;
}

/** Every string value under a secret field name: what a secret scan or a log filter looks for. */
export function collectSecretValues(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) collectSecretValues(item, found);
  } else if (isRecord(value)) {
    for (const [name, field] of Object.entries(value)) {
      if (isSecretMapName(name) && isRecord(field)) {
        for (const headerValue of Object.values(field)) if (typeof headerValue === 'string') found.push(headerValue);
      } else if (isSecretFieldName(name) && typeof field === 'string') found.push(field);
      else collectSecretValues(field, found);
    }
  }
  return found;
}
