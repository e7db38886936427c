import { describe, expect, it } from 'vitest';
import { linksTo, spanContextOf } from './traceparent.js';

describe('traceparent', () => {
  it('reads a W3C traceparent into a remote span context', () => {
    expect(spanContextOf('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')).toEqual({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
      isRemote: true,
    });
    expect(linksTo('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00')).toEqual([{ context: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 0, isRemote: true } }]);
  });

  it('ignores an absent, malformed or all-zero value (a stored row from before tracing, or a bad header)', () => {
    for (const value of [undefined, '', 'garbage', '01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', '00-00000000000000000000000000000000-b7ad6b7169203331-01', '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01']) {
      expect(spanContextOf(value)).toBeUndefined();
      expect(linksTo(value)).toEqual([]);
    }
  });
});
