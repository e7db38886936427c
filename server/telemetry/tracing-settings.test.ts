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
      serviceName: 'harness',
      recordContent: false,
      batch: {},
    });
    const settings = tracingSettingsFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SERVICE_NAME: 'agents', HARNESS_OTEL_RECORD_CONTENT: 'true', OTEL_BSP_SCHEDULE_DELAY: '200', OTEL_BSP_MAX_QUEUE_SIZE: 'lots' });
    expect(settings).toMatchObject({ serviceName: 'agents', recordContent: true, batch: { scheduledDelayMillis: 200 } });
  });

  it('honours the standard switches that turn the SDK or the traces exporter off', () => {
    expect(tracingSettingsFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(tracingSettingsFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });
});
