import { describe, expect, it } from 'vitest';
import { wantsEventStream } from './stream-negotiation.js';

describe('wantsEventStream', () => {
  it('streams whenever the request accepts text/event-stream', () => {
    expect(wantsEventStream('text/event-stream', 'native')).toBe(true);
    expect(wantsEventStream('application/json, text/event-stream', 'transport')).toBe(true);
  });

  it('streams a chat transport body that does not ask for JSON, as useChat sends it', () => {
    expect(wantsEventStream(undefined, 'transport')).toBe(true);
    expect(wantsEventStream('*/*', 'transport')).toBe(true);
    expect(wantsEventStream('application/json', 'transport')).toBe(false);
  });

  it('answers a native body with JSON unless it asks for the stream', () => {
    expect(wantsEventStream(undefined, 'native')).toBe(false);
    expect(wantsEventStream('*/*', 'native')).toBe(false);
  });
});
