import { describe, expect, it } from 'vitest';
import { tracesUrlFromEnvironment, tracingSettingsFromEnvironment } from './tracing-settings.js';

describe('tracingSettingsFromEnvironment', () => {
  it('is off without an OTLP endpoint', () => {
    expect(tracingSettingsFromEnvironment({})).toBeUndefined();
    expect(tracingSettingsFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBeUndefined();
  });

  it('sends to <endpoint>/v1/traces, or to the traces-specific URL as given', () => {
    expect(tracesUrlFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toBe('http://collector:4318/v1/traces');
    expect(tracesUrlFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://other:4318/custom' })).toBe('http://other:4318/custom');
  });

  it('names the service harness unless OTEL_SERVICE_NAME says otherwise, and records no content unless asked', () => {
    expect(tracingSettingsFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      tracesUrl: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: 'harness',
      resourceAttributes: {},
      recordContent: false,
      batch: {},
    });
    const settings = tracingSettingsFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SERVICE_NAME: 'agents', HARNESS_OTEL_RECORD_CONTENT: 'true', OTEL_BSP_SCHEDULE_DELAY: '200', OTEL_BSP_MAX_QUEUE_SIZE: 'lots' });
    expect(settings).toMatchObject({ serviceName: 'agents', recordContent: true, batch: { scheduledDelayMillis: 200 } });
  });

  it('takes service.name from OTEL_SERVICE_NAME, else from OTEL_RESOURCE_ATTRIBUTES, else harness', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    const attributes = { ...endpoint, OTEL_RESOURCE_ATTRIBUTES: 'service.name=from%20attributes,deployment.environment=staging' };
    expect(tracingSettingsFromEnvironment(attributes)).toMatchObject({ serviceName: 'from attributes', resourceAttributes: { 'service.name': 'from attributes', 'deployment.environment': 'staging' } });
    expect(tracingSettingsFromEnvironment({ ...attributes, OTEL_SERVICE_NAME: 'named' })?.serviceName).toBe('named');
    expect(tracingSettingsFromEnvironment({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=staging' })?.serviceName).toBe('harness');
    // An entry that cannot be read discards the whole value, as the specification says.
    expect(tracingSettingsFromEnvironment({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: 'service.name=a,broken' })).toMatchObject({ serviceName: 'harness', resourceAttributes: {} });
  });

  it('exports http/protobuf by default, http/json when asked (traces-specific first), and falls back with a warning for grpc', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://user:pass@c:4318' };
    expect(tracingSettingsFromEnvironment({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toMatchObject({ protocol: 'http/json' });
    expect(tracingSettingsFromEnvironment({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' })).toMatchObject({ protocol: 'http/json' });
    expect(tracingSettingsFromEnvironment({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'HTTP/PROTOBUF' })).not.toHaveProperty('protocolWarning');
    const grpc = tracingSettingsFromEnvironment({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })!;
    expect(grpc.protocol).toBe('http/protobuf');
    expect(grpc.protocolWarning).toContain('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported');
    expect(grpc.protocolWarning).toContain('http/protobuf to http://c:4318/v1/traces');
    expect(grpc.protocolWarning).not.toContain('pass');
    expect(tracingSettingsFromEnvironment({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'thrift' })?.protocolWarning).toContain('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=thrift is not an OTLP protocol');
  });

  it('honours the standard switches that turn the SDK or the traces exporter off', () => {
    expect(tracingSettingsFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(tracingSettingsFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });
});
