import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import { canonicalJson, parseIdempotencyKey, requestFingerprint } from './request-fingerprint.js';

describe('parseIdempotencyKey', () => {
  it('takes 1-255 printable ASCII characters and no header at all', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey('a')).toBe('a');
    expect(parseIdempotencyKey('order 42 / retry ~!')).toBe('order 42 / retry ~!');
    expect(parseIdempotencyKey('k'.repeat(255))).toHaveLength(255);
  });

  it('refuses an empty, long, non-ASCII or repeated header with a 400 naming it', () => {
    for (const value of ['', 'k'.repeat(256), 'tab\there', 'naïve', 'line\nbreak', ['one', 'two']]) {
      expect(() => parseIdempotencyKey(value)).toThrow(InvalidRequestError);
      expect(() => parseIdempotencyKey(value)).toThrow(/Idempotency-Key/);
    }
  });
});

describe('requestFingerprint', () => {
  const request = { method: 'post', path: '/agents/helper/chat', body: { conversationKey: 'k', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } } };

  it('is the same for the same body whatever the order of its keys', () => {
    const reordered = { method: 'POST', path: '/agents/helper/chat', body: { message: { content: [{ text: 'hi', type: 'text' }], role: 'user' }, conversationKey: 'k' } };
    expect(requestFingerprint(reordered)).toBe(requestFingerprint(request));
    expect(requestFingerprint(request)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs for another body, another path or another method', () => {
    const fingerprint = requestFingerprint(request);
    expect(requestFingerprint({ ...request, body: { ...request.body, conversationKey: 'other' } })).not.toBe(fingerprint);
    expect(requestFingerprint({ ...request, path: '/agents/other/chat' })).not.toBe(fingerprint);
    expect(requestFingerprint({ ...request, method: 'PUT' })).not.toBe(fingerprint);
    // Array order is meaning, not form.
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it('writes a body in one canonical form', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], c: { z: 1, y: undefined } })).toBe('{"a":[true,null,"x"],"b":1,"c":{"z":1}}');
  });
});
