import { afterEach, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../../test/support/otlp-receiver.js';
import { spanName } from '../core/telemetry/span-attributes.js';
import { inSpan, startSpan } from '../core/telemetry/spans.js';
import { linksTo, traceparentOf } from '../core/telemetry/traceparent.js';
import { tracingState } from '../core/telemetry/tracing-state.js';
import { startTracing } from './start-tracing.js';
import { tracingSettingsFromEnvironment, type TracingSettings } from './tracing-settings.js';

let receiver: OtlpReceiver | undefined;

afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/**
 * Traces with `settings` as `instanceId`, and makes the four spans both exporters are tested on:
 * `outer` with attributes of each kind, `inner` under it, `failing` with an error, and a new root
 * `linked` that links to `outer`. Returns once tracing is shut down (every span sent).
 */
async function traceSampleSpans(settings: TracingSettings, instanceId: string): Promise<void> {
  const tracing = startTracing({ settings, instanceId });
  let parentContext: string | undefined;
  await inSpan('outer', () => ({ text: 'value', count: 3, ratio: 0.5, flag: true, list: ['a', 'b'] }), async (outer) => {
    parentContext = traceparentOf(outer);
    await inSpan('inner', undefined, async () => undefined);
    await inSpan('failing', undefined, () => Promise.reject(new TypeError('the details stay out'))).catch(() => undefined);
  });
  startSpan('linked', undefined, { root: true, links: linksTo(parentContext) })?.end();
  await tracing.shutdown();
}

describe('startTracing', () => {
  it('exports spans over OTLP/HTTP protobuf with the resource, parents, links, attributes and status', async () => {
    receiver = await startOtlpReceiver();
    const settings = tracingSettingsFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'harness-test' })!;
    await traceSampleSpans(settings, 'replica-1');
    expect(tracingState()).toBeUndefined();

    const spans = await receiver.waitFor((received) => received.length >= 4);
    const byName = new Map(spans.map((span) => [span.name, span]));
    const outer = byName.get('outer')!;
    expect(outer.parentSpanId).toBe('');
    expect(outer.attributes).toMatchObject({ text: 'value', count: 3, ratio: 0.5, flag: true, list: ['a', 'b'] });
    expect(outer.resource).toMatchObject({ 'service.name': 'harness-test', 'service.instance.id': 'replica-1' });
    expect(outer.scope.name).toBe('harness');
    expect(outer.endTimeUnixNano).toBeGreaterThanOrEqual(outer.startTimeUnixNano);
    expect(byName.get('inner')).toMatchObject({ traceId: outer.traceId, parentSpanId: outer.spanId });
    const failing = byName.get('failing')!;
    expect(failing.status).toEqual({ code: 2, message: 'TypeError' });
    expect(failing.attributes['error.type']).toBe('TypeError');
    const linked = byName.get('linked')!;
    expect(linked.traceId).not.toBe(outer.traceId);
    expect(linked.links).toEqual([{ traceId: outer.traceId, spanId: outer.spanId, attributes: {} }]);
    expect(receiver.refused()).toEqual([]);
  });

  it('exports over OTLP/HTTP JSON with http/json, to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, with the same spans', async () => {
    receiver = await startOtlpReceiver({ path: '/custom/traces' });
    const settings = tracingSettingsFromEnvironment({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.tracesUrl, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' })!;
    await traceSampleSpans(settings, 'replica-json');

    const spans = await receiver.waitFor((received) => received.length >= 4);
    expect(receiver.encodings()).toEqual(['json']);
    const byName = new Map(spans.map((span) => [span.name, span]));
    const outer = byName.get('outer')!;
    expect(outer.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(outer.attributes).toMatchObject({ text: 'value', count: 3, ratio: 0.5, flag: true, list: ['a', 'b'] });
    expect(outer.resource).toMatchObject({ 'service.name': 'harness', 'service.instance.id': 'replica-json' });
    expect(outer.endTimeUnixNano).toBeGreaterThanOrEqual(outer.startTimeUnixNano);
    expect(byName.get('inner')).toMatchObject({ traceId: outer.traceId, parentSpanId: outer.spanId });
    expect(byName.get('failing')!.status).toEqual({ code: 2, message: 'TypeError' });
    expect(byName.get('linked')!.links).toEqual([{ traceId: outer.traceId, spanId: outer.spanId, attributes: {} }]);
    expect(receiver.refused()).toEqual([]);
  });

  it("keeps OTEL_RESOURCE_ATTRIBUTES: its service.name and instance id stand unless OTEL_SERVICE_NAME is set", async () => {
    receiver = await startOtlpReceiver();
    const attributes = 'service.name=billing-agents,service.instance.id=pod-7,deployment.environment=staging';
    const fromAttributes = startTracing({ settings: tracingSettingsFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_RESOURCE_ATTRIBUTES: attributes })!, instanceId: 'replica-1' });
    startSpan('from-attributes')?.end();
    await fromAttributes.shutdown();
    const named = startTracing({ settings: tracingSettingsFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_RESOURCE_ATTRIBUTES: attributes, OTEL_SERVICE_NAME: 'explicit' })!, instanceId: 'replica-1' });
    startSpan('named')?.end();
    await named.shutdown();

    const spans = await receiver.waitFor((received) => received.length >= 2);
    expect(spans.find((span) => span.name === 'from-attributes')!.resource).toMatchObject({ 'service.name': 'billing-agents', 'service.instance.id': 'pod-7', 'deployment.environment': 'staging' });
    expect(spans.find((span) => span.name === 'named')!.resource).toMatchObject({ 'service.name': 'explicit', 'deployment.environment': 'staging' });
  });

  it('makes no span and runs the work alone when tracing is off', async () => {
    expect(tracingState()).toBeUndefined();
    expect(startSpan(spanName.turn)).toBeUndefined();
    await expect(inSpan(spanName.turn, undefined, async (span) => span)).resolves.toBeUndefined();
  });
});
