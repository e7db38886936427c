import { describe, expect, it } from 'vitest';
import { parseBearerToken } from './bearer-token.js';

describe('parseBearerToken', () => {
  it('reads the token of a Bearer header, the scheme in any case, blanks around it allowed', () => {
    expect(parseBearerToken('Bearer sk_abc')).toBe('sk_abc');
    expect(parseBearerToken('bearer   sk_abc  ')).toBe('sk_abc');
    expect(parseBearerToken('BEARER\tsk_abc')).toBe('sk_abc');
  });

  it('reads nothing from a missing header, another scheme, no token or two tokens', () => {
    expect(parseBearerToken(undefined)).toBeUndefined();
    expect(parseBearerToken(null)).toBeUndefined();
    expect(parseBearerToken('')).toBeUndefined();
    expect(parseBearerToken('Basic dXNlcjpwYXNz')).toBeUndefined();
    expect(parseBearerToken('Bearer')).toBeUndefined();
    expect(parseBearerToken('Bearer ')).toBeUndefined();
    expect(parseBearerToken('Bearer a b')).toBeUndefined();
    expect(parseBearerToken(' Bearer sk_abc')).toBeUndefined();
  });
});
