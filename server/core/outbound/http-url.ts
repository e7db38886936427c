import { z } from 'zod';

/** True for an absolute `http:` or `https:` URL: the only kind of address the service calls out to. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A config field holding an address the service will call: `must be an absolute http(s) URL` otherwise. */
export const httpUrlSchema = z.string({ error: 'must be an absolute http(s) URL' }).refine(isHttpUrl, 'must be an absolute http(s) URL');
