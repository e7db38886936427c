import { Command } from 'commander';
import { printableUrl, tracingSettingsFromEnvironment } from '../../server/telemetry/tracing-settings.js';
import type { CliContext } from '../cli-context.js';
import { readFileTail } from '../deploy/file-tail.js';
import { selectStageFolder } from '../deploy/stage-folder.js';
import { printJson, printText } from '../output.js';
import { commandOptions, withJsonOption } from '../session.js';

/** Where traces go, as `harness traces --json` prints it. */
export interface TracesReport {
  /** `environment`: what `harness serve` / `harness deploy` started from this shell would do; `stage`: what the stage's running service logged at start. */
  source: 'environment' | 'stage';
  enabled: boolean;
  /** The OTLP/HTTP traces URL, without credentials or query. */
  tracesUrl?: string;
  /** The encoding: `http/protobuf` or `http/json` (absent in a stage log written before it was logged). */
  protocol?: string;
  /** Why the protocol asked for is not used (`grpc`). */
  protocolWarning?: string;
  serviceName?: string;
  recordContent?: boolean;
  /** Which variable set the URL (environment source only). */
  setBy?: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' | 'OTEL_EXPORTER_OTLP_ENDPOINT';
}

function fromEnvironment(env: Record<string, string | undefined>): TracesReport {
  const settings = tracingSettingsFromEnvironment(env);
  if (!settings) return { source: 'environment', enabled: false };
  const setBy = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  return {
    source: 'environment',
    enabled: true,
    tracesUrl: printableUrl(settings.tracesUrl),
    protocol: settings.protocol,
    ...(settings.protocolWarning ? { protocolWarning: settings.protocolWarning } : {}),
    serviceName: settings.serviceName,
    recordContent: settings.recordContent,
    setBy,
  };
}

/**
 * What a deployed stage's service logged when it last started: every start logs a `sandbox`
 * line, and, before it, a `tracing` line when tracing is on. Undefined when the stage has no log.
 */
async function fromStageLog(logFile: string): Promise<TracesReport | undefined> {
  const text = await readFileTail(logFile, 5000, 4 * 1024 * 1024);
  const lines = text.split('\n');
  const lastStart = lines.findLastIndex((line) => line.includes('"event":"sandbox"'));
  if (lastStart < 0) return undefined;
  const previousStart = lines.slice(0, lastStart).findLastIndex((line) => line.includes('"event":"sandbox"'));
  const line = lines.slice(previousStart + 1, lastStart).findLast((candidate) => candidate.includes('"event":"tracing"'));
  if (!line) return { source: 'stage', enabled: false };
  const fields = JSON.parse(line) as { tracesUrl?: string; protocol?: string; serviceName?: string; recordContent?: boolean };
  return {
    source: 'stage',
    enabled: true,
    ...(fields.tracesUrl ? { tracesUrl: printableUrl(fields.tracesUrl) } : {}),
    ...(fields.protocol ? { protocol: fields.protocol } : {}),
    ...(fields.serviceName ? { serviceName: fields.serviceName } : {}),
    ...(fields.recordContent !== undefined ? { recordContent: fields.recordContent } : {}),
  };
}

export function formatTracesReport(report: TracesReport): string {
  const where = report.source === 'stage' ? 'the stage\'s service' : 'services started from this environment';
  if (!report.enabled) {
    return [
      `traces: off for ${where}`,
      '  set OTEL_EXPORTER_OTLP_ENDPOINT (e.g. http://localhost:4318) in the environment of harness serve or harness deploy',
      '  to export OpenTelemetry spans over OTLP/HTTP (protobuf; OTEL_EXPORTER_OTLP_PROTOCOL=http/json for JSON) to a collector or tracing backend',
    ].join('\n');
  }
  return [
    `traces: on for ${where}`,
    `  sent to:           ${report.tracesUrl ?? '(see the service log)'} (OTLP/HTTP, ${report.protocol === 'http/json' ? 'JSON' : 'protobuf'}${report.setBy ? `; from ${report.setBy}` : ''})`,
    ...(report.protocolWarning ? [`  warning:           ${report.protocolWarning}`] : []),
    ...(report.serviceName ? [`  service.name:      ${report.serviceName}`] : []),
    `  content recording: ${report.recordContent ? 'on (prompts, messages and tool inputs/outputs are in spans)' : 'off (HARNESS_OTEL_RECORD_CONTENT=true turns it on)'}`,
    '  look at them in the backend behind that endpoint; locally, for example Jaeger:',
    '    docker run --rm -p 16686:16686 -p 4318:4318 jaegertracing/all-in-one',
    '    then open http://localhost:16686 and pick the service (one trace per request; spans named harness.*, ai.*)',
  ].join('\n');
}

/** Prints where traces go: from this environment, or with `--stage`, from what the stage's service logged. */
export async function runTraces(context: CliContext, options: { stage?: string; json?: boolean }): Promise<void> {
  const stageReport = options.stage ? await fromStageLog(selectStageFolder(context.env, options.stage).logFile) : undefined;
  const report = stageReport ?? fromEnvironment(context.env);
  if (options.json) printJson(context.stdout, report);
  else printText(context.stdout, formatTracesReport(report));
}

export function tracesCommand(context: CliContext): Command {
  return withJsonOption(
    new Command('traces')
      .description('print where the service sends its OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT) and how to look at them')
      .option('--stage <name>', 'report what a deployed stage\'s service logged at its start instead of this environment'),
  ).action(async (_options: unknown, command: Command) => {
    const { stage, json } = commandOptions<{ stage?: string }>(command);
    await runTraces(context, { stage, json });
  });
}
