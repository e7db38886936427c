import { InvalidArgumentError } from 'commander';
import { isHttpUrl } from '../server/core/outbound/http-url.js';
import { UsageError } from './cli-error.js';

/** Commander argument parsers: a bad value becomes commander's own one-line usage error. */

export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError('expected a port number from 0 to 65535.');
  return port;
}

export function parsePositiveInteger(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || !Number.isSafeInteger(number)) throw new InvalidArgumentError('expected a positive whole number.');
  return number;
}

export function parseServiceUrl(value: string): string {
  if (!isHttpUrl(value)) throw new InvalidArgumentError('expected an http:// or https:// URL.');
  return value.replace(/\/+$/, '');
}

/** A service URL from the environment, or the default; a bad value names the variable. */
export function serviceUrlFromEnvironment(env: Record<string, string | undefined>, name: string, fallback: string): string {
  const value = env[name] || fallback;
  try {
    return parseServiceUrl(value);
  } catch {
    throw new UsageError(`${name}=${value} is not an http:// or https:// URL`);
  }
}
