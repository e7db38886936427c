import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import { defaultBusyMode, parseBusyMode } from './busy-mode.js';

describe('busy modes', () => {
  it('defaults to collect for channels and queue for every other way in', () => {
    expect(defaultBusyMode('channel')).toBe('collect');
    for (const transport of ['sse', 'json', 'async', 'nats', 'cron'] as const) expect(defaultBusyMode(transport)).toBe('queue');
  });

  it('takes the five names and refuses anything else, naming the field', () => {
    for (const mode of ['reject', 'queue', 'collect', 'steer', 'interrupt']) expect(parseBusyMode(mode, 'busy')).toBe(mode);
    expect(parseBusyMode(undefined, 'busy')).toBeUndefined();
    expect(() => parseBusyMode('later', 'busy')).toThrow(InvalidRequestError);
    expect(() => parseBusyMode(3, 'config.busy')).toThrow(/config\.busy must be one of reject, queue, collect, steer, interrupt/);
  });
});
