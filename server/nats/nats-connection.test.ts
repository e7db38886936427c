import { describe, expect, it } from 'vitest';
import { ReconnectBackoff, natsServerList, natsTransportOf, reconnectDelay } from './nats-connection.js';

describe('natsTransportOf', () => {
  it('maps nats:// and tls:// to TCP, ws:// and wss:// to WebSocket, and refuses the rest', () => {
    expect(natsTransportOf('nats://127.0.0.1:4222')).toBe('tcp');
    expect(natsTransportOf('TLS://nats.example.com')).toBe('tcp');
    expect(natsTransportOf('ws://127.0.0.1:8080')).toBe('websocket');
    expect(natsTransportOf('wss://nats.example.com')).toBe('websocket');
    expect(() => natsTransportOf('http://127.0.0.1:4222')).toThrow(/NATS_URL/);
  });

  it('takes an entry without a scheme as a nats:// server', () => {
    expect(natsServerList('127.0.0.1:4222, nats://b:4222,c')).toEqual(['nats://127.0.0.1:4222', 'nats://b:4222', 'nats://c']);
    expect(natsTransportOf('127.0.0.1:4222,127.0.0.1:4223')).toBe('tcp');
    expect(() => natsTransportOf('127.0.0.1:4222,ws://127.0.0.1:8080')).toThrow(/different transports/);
  });
});

describe('reconnect backoff', () => {
  it('doubles per attempt up to the maximum, with at most half again of jitter', () => {
    for (let attempt = 0; attempt < 30; attempt += 1) {
      const expected = Math.min(10_000, 250 * 2 ** attempt);
      const delay = reconnectDelay(attempt, 250, 10_000);
      expect(delay).toBeGreaterThanOrEqual(expected);
      expect(delay).toBeLessThanOrEqual(expected * 1.5);
    }
  });

  it('waits half the outage so far, between the base and the maximum, whatever how often it is asked', () => {
    const backoff = new ReconnectBackoff(250, 10_000);
    backoff.disconnected(1_000);
    const atStart = backoff.delay(1_000);
    expect(atStart).toBeGreaterThanOrEqual(250);
    expect(atStart).toBeLessThanOrEqual(375);
    for (let call = 0; call < 100; call += 1) expect(backoff.delay(1_000)).toBe(atStart);
    const later = backoff.delay(9_000);
    expect(later).toBeGreaterThanOrEqual(4_000);
    expect(later).toBeLessThanOrEqual(6_000);
    expect(backoff.delay(1_000_000)).toBeLessThanOrEqual(15_000);
    backoff.reconnected();
    expect(backoff.delay(2_000_000)).toBeLessThanOrEqual(375);
  });
});
