import { describe, expect, it } from 'vitest';
import { httpUrlSchema, isHttpUrl } from './http-url.js';

describe('isHttpUrl', () => {
  it('accepts absolute http and https URLs only', () => {
    expect(isHttpUrl('http://127.0.0.1:4300/dispatch')).toBe(true);
    expect(isHttpUrl('HTTPS://api.example.com')).toBe(true);
    for (const value of ['ftp://example.com', 'file:///etc/passwd', 'javascript:alert(1)', 'example.com', '/relative', '']) {
      expect(isHttpUrl(value)).toBe(false);
    }
  });

  it('gives config fields one message for every way of missing it', () => {
    expect(httpUrlSchema.safeParse('https://example.com').success).toBe(true);
    expect(httpUrlSchema.safeParse('ftp://example.com').error?.issues[0]?.message).toBe('must be an absolute http(s) URL');
    expect(httpUrlSchema.safeParse(42).error?.issues[0]?.message).toBe('must be an absolute http(s) URL');
  });
});
