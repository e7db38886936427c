import { afterEach, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../../test/support/otlp-receiver.js';
import type { Logger } from '../core/logger.js';
import { startSpan } from '../core/telemetry/spans.js';
import { tracingState } from '../core/telemetry/tracing-state.js';
import { ensureTracingStarted } from './ensure-tracing.js';

let receiver: OtlpReceiver | undefined;

afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

function recordingLogger(): Logger & { lines: { level: string; fields: Record<string, unknown>; message?: string }[] } {
  const lines: { level: string; fields: Record<string, unknown>; message?: string }[] = [];
  const record = (level: string) => (fields: Record<string, unknown>, message?: string) => lines.push({ level, fields, ...(message ? { message } : {}) });
  return { lines, info: record('info'), warn: record('warn'), error: record('error'), debug: record('debug') };
}

describe('ensureTracingStarted', () => {
  it('starts nothing without an endpoint', () => {
    expect(ensureTracingStarted({ env: {} })).toBeUndefined();
    expect(tracingState()).toBeUndefined();
  });

  it('starts once per process: later callers join the first one, and the last release exports and turns tracing off', async () => {
    receiver = await startOtlpReceiver();
    const logger = recordingLogger();
    const first = ensureTracingStarted({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint }, instanceId: 'first', logger })!;
    const state = tracingState();
    expect(state).toBeDefined();
    // A second caller (another app being built) joins, whatever its environment says.
    const second = ensureTracingStarted({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9/unused' }, instanceId: 'second', logger })!;
    expect(second.tracesUrl).toBe(first.tracesUrl);
    expect(tracingState()).toBe(state);
    expect(logger.lines).toEqual([{ level: 'info', fields: expect.objectContaining({ event: 'tracing', protocol: 'http/protobuf', tracesUrl: receiver.tracesUrl }), message: 'exporting traces over OTLP' }]);

    startSpan('while-held')?.end();
    await first.release();
    await first.release();
    expect(tracingState()).toBe(state);
    await second.release();
    expect(tracingState()).toBeUndefined();
    const spans = await receiver.waitFor((received) => received.length >= 1);
    expect(spans.map((span) => [span.name, span.resource['service.instance.id']])).toEqual([['while-held', 'first']]);
  });

  it('warns at start that grpc is not supported and says which protocol is used', async () => {
    receiver = await startOtlpReceiver();
    const logger = recordingLogger();
    const lease = ensureTracingStarted({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, logger })!;
    startSpan('over-http')?.end();
    await lease.release();
    const warning = logger.lines.find((line) => line.level === 'warn');
    expect(warning?.fields).toMatchObject({ event: 'tracing-protocol', protocol: 'http/protobuf' });
    expect(warning?.message).toContain('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: harness exports traces over OTLP/HTTP only; exporting over http/protobuf');
    expect(await receiver.waitFor((received) => received.length >= 1)).toHaveLength(1);
    expect(receiver.encodings()).toEqual(['protobuf']);
  });
});
