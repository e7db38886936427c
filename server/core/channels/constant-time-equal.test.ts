import { describe, expect, it } from 'vitest';
import { constantTimeEqual } from './constant-time-equal.js';

describe('constantTimeEqual', () => {
  it('is true only for identical strings, whatever their lengths', () => {
    expect(constantTimeEqual('secret-token', 'secret-token')).toBe(true);
    expect(constantTimeEqual('secret-tokem', 'secret-token')).toBe(false);
    expect(constantTimeEqual('secret', 'secret-token')).toBe(false);
    expect(constantTimeEqual('', 'secret-token')).toBe(false);
  });
});
