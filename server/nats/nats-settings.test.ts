import { describe, expect, it } from 'vitest';
import { readNatsSettings } from './nats-settings.js';

describe('readNatsSettings', () => {
  it('runs the embedded server by default, optional unless ENABLE_WEBSOCKET=true is explicit', () => {
    expect(readNatsSettings({})).toEqual({ mode: 'embedded', required: false });
    expect(readNatsSettings({ ENABLE_WEBSOCKET: 'true', NATS_TOKEN: 'service-token' })).toEqual({ mode: 'embedded', required: true, serviceToken: 'service-token' });
  });

  it('connects to NATS_URL, picking the transport from its scheme', () => {
    expect(readNatsSettings({ NATS_URL: 'nats://nats.internal:4222', NATS_TOKEN: 't' })).toEqual({ mode: 'external', url: 'nats://nats.internal:4222', transport: 'tcp', token: 't' });
    expect(readNatsSettings({ NATS_URL: 'wss://nats.example.com' })).toEqual({ mode: 'external', url: 'wss://nats.example.com', transport: 'websocket' });
    expect(readNatsSettings({ NATS_URL: 'nats://harness-service:p%40ss@nats.internal:4222' })).toEqual({
      mode: 'external',
      url: 'nats://nats.internal:4222',
      transport: 'tcp',
      user: 'harness-service',
      password: 'p@ss',
    });
    expect(() => readNatsSettings({ NATS_URL: 'http://nats.example.com' })).toThrow(/nats:\/\/, tls:\/\/, ws:\/\/ or wss:\/\//);
  });

  it('turns NATS off entirely with ENABLE_WEBSOCKET=false, even with NATS_URL', () => {
    expect(readNatsSettings({ ENABLE_WEBSOCKET: 'false', NATS_URL: 'nats://127.0.0.1:4222' })).toEqual({ mode: 'disabled' });
    expect(() => readNatsSettings({ ENABLE_WEBSOCKET: 'maybe' })).toThrow(/ENABLE_WEBSOCKET/);
  });
});

describe('readNatsSettings with a cluster', () => {
  it('accepts several comma-separated servers in NATS_URL, with user information taken out of each', () => {
    expect(readNatsSettings({ NATS_URL: 'nats://a:4222, nats://b:4222,nats://c:4222', NATS_TOKEN: 't' })).toEqual({
      mode: 'external',
      url: 'nats://a:4222,nats://b:4222,nats://c:4222',
      transport: 'tcp',
      token: 't',
    });
    expect(readNatsSettings({ NATS_URL: 'nats://svc:pw@a:4222,nats://svc:pw@b:4222' })).toEqual({ mode: 'external', url: 'nats://a:4222,nats://b:4222', transport: 'tcp', user: 'svc', password: 'pw' });
    expect(() => readNatsSettings({ NATS_URL: 'nats://a:4222,ws://b:8080' })).toThrow(/different transports/);
    expect(readNatsSettings({ NATS_URL: 'nats://a:4222,nats://b:4222', NATS_AUTH: 'jwt' })).toEqual({ mode: 'external', url: 'nats://a:4222,nats://b:4222', transport: 'tcp', authentication: 'jwt' });
    expect(() => readNatsSettings({ NATS_URL: 'nats://a:4222', NATS_AUTH: 'password' })).toThrow(/NATS_AUTH/);
  });

  it('reads servers given as host:port, as nats-server and its clients accept them', () => {
    expect(readNatsSettings({ NATS_URL: '127.0.0.1:4222,127.0.0.1:4223, nats://127.0.0.1:4224' })).toEqual({
      mode: 'external',
      url: 'nats://127.0.0.1:4222,nats://127.0.0.1:4223,nats://127.0.0.1:4224',
      transport: 'tcp',
    });
  });

  it('takes user information without a password as a token; NATS_TOKEN wins over it', () => {
    expect(readNatsSettings({ NATS_URL: 'nats://s3cr%40t@a:4222,nats://s3cr%40t@b:4222' })).toEqual({ mode: 'external', url: 'nats://a:4222,nats://b:4222', transport: 'tcp', token: 's3cr@t' });
    expect(readNatsSettings({ NATS_URL: 'tok@a:4222' })).toEqual({ mode: 'external', url: 'nats://a:4222', transport: 'tcp', token: 'tok' });
    expect(readNatsSettings({ NATS_URL: 'nats://from-url@a:4222', NATS_TOKEN: 'from-env' })).toEqual({ mode: 'external', url: 'nats://a:4222', transport: 'tcp', token: 'from-env' });
  });
});
