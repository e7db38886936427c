import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { selectStageFolder } from '../deploy/stage-folder.js';
import { createTestContext } from '../test-support/test-context.js';
import { runTraces } from './traces.js';

describe('harness traces', () => {
  it('says tracing is off and how to turn it on when no OTLP endpoint is set', async () => {
    const context = await createTestContext();
    await runTraces(context, {});
    expect(context.output()).toContain('traces: off');
    expect(context.output()).toContain('set OTEL_EXPORTER_OTLP_ENDPOINT');
  });

  it('prints the traces URL the services would use, without credentials, and whether content is recorded', async () => {
    const context = await createTestContext({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://user:hunter2@collector.example:4318', OTEL_SERVICE_NAME: 'agents' } });
    await runTraces(context, {});
    const output = context.output();
    expect(output).toContain('traces: on');
    expect(output).toContain('https://collector.example:4318/v1/traces (OTLP/HTTP, protobuf; from OTEL_EXPORTER_OTLP_ENDPOINT)');
    expect(output).toContain('service.name:      agents');
    expect(output).toContain('content recording: off');
    expect(output).not.toContain('hunter2');
  });

  it('with --json, prints the report as one JSON line', async () => {
    const context = await createTestContext({ env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces', HARNESS_OTEL_RECORD_CONTENT: 'true' } });
    await runTraces(context, { json: true });
    expect(JSON.parse(context.output())).toEqual({ source: 'environment', enabled: true, tracesUrl: 'http://127.0.0.1:4318/v1/traces', protocol: 'http/protobuf', serviceName: 'harness', recordContent: true, setBy: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' });
  });

  it('names the encoding, and warns that grpc is exported over OTLP/HTTP instead', async () => {
    const json = await createTestContext({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attributes' } });
    await runTraces(json, {});
    expect(json.output()).toContain('http://collector:4318/v1/traces (OTLP/HTTP, JSON; from OTEL_EXPORTER_OTLP_ENDPOINT)');
    expect(json.output()).toContain('service.name:      from-attributes');
    const grpc = await createTestContext({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' } });
    await runTraces(grpc, {});
    expect(grpc.output()).toContain('(OTLP/HTTP, protobuf; from OTEL_EXPORTER_OTLP_ENDPOINT)');
    expect(grpc.output()).toContain('warning:           OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported');
  });

  it('with --stage, reports what the stage\'s service logged at its last start', async () => {
    const context = await createTestContext();
    const folder = selectStageFolder(context.env, 'traced');
    await mkdir(folder.path, { recursive: true });
    const lines = [
      { event: 'tracing', tracesUrl: 'http://old:4318/v1/traces', recordContent: false },
      { event: 'sandbox' },
      { event: 'tracing', tracesUrl: 'http://collector:4318/v1/traces', protocol: 'http/json', recordContent: false },
      { event: 'sandbox' },
      { event: 'turn' },
    ];
    await writeFile(folder.logFile, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    await runTraces(context, { stage: 'traced', json: true });
    expect(JSON.parse(context.output())).toEqual({ source: 'stage', enabled: true, tracesUrl: 'http://collector:4318/v1/traces', protocol: 'http/json', recordContent: false });

    await writeFile(join(folder.path, 'service.log'), `${JSON.stringify({ event: 'sandbox' })}\n`, { flag: 'a' });
    const again = await createTestContext({ env: context.env as Record<string, string> });
    await runTraces(again, { stage: 'traced', json: true });
    expect(JSON.parse(again.output())).toMatchObject({ source: 'stage', enabled: false });
  });
});
