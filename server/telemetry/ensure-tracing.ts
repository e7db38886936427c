import { hostname } from 'node:os';
import type { Logger } from '../core/logger.js';
import { type RunningTracing, startTracing } from './start-tracing.js';
import { printableUrl, tracingSettingsFromEnvironment } from './tracing-settings.js';

/** One user's hold on the process's tracing: tracing stops when the last holder releases it. */
export interface TracingLease {
  /** Where spans go. */
  tracesUrl: string;
  /** Done with tracing; the last release exports what is buffered and turns tracing off. Idempotent. */
  release(): Promise<void>;
}

export interface EnsureTracingOptions {
  /** The variables to read (default: `process.env`). */
  env?: Record<string, string | undefined>;
  /** `service.instance.id` if this call starts tracing (default: `HARNESS_REPLICA_ID`, else `<hostname>:<pid>`). */
  instanceId?: string;
  /** Where the start is logged (the traces URL, and a warning for an unsupported protocol), if this call starts tracing. */
  logger?: Logger;
}

/** The process's tracing while anyone holds it. */
let shared: { tracing: RunningTracing; holders: number } | undefined;

/**
 * Tracing for whoever builds the services, started once per process: the first caller with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `..._TRACES_ENDPOINT`) set starts it, later callers join
 * it, and it stops when the last of them releases it. `harness serve` calls it first (with its
 * replica name and logger); `createApp` calls it too, so services built in-process (tests,
 * embedders) export spans without `serve`. Undefined when tracing is off: then nothing was
 * built and nothing runs per request.
 */
export function ensureTracingStarted(options: EnsureTracingOptions = {}): TracingLease | undefined {
  if (!shared) {
    const env = options.env ?? process.env;
    const settings = tracingSettingsFromEnvironment(env);
    if (!settings) return undefined;
    const instanceId = options.instanceId ?? (env.HARNESS_REPLICA_ID?.trim() || `${hostname()}:${process.pid}`);
    if (settings.protocolWarning) options.logger?.warn({ event: 'tracing-protocol', protocol: settings.protocol }, settings.protocolWarning);
    options.logger?.info(
      { event: 'tracing', tracesUrl: printableUrl(settings.tracesUrl), protocol: settings.protocol, serviceName: settings.serviceName, recordContent: settings.recordContent },
      'exporting traces over OTLP',
    );
    shared = { tracing: startTracing({ settings, instanceId }), holders: 0 };
  }
  const current = shared;
  current.holders += 1;
  let released = false;
  return {
    tracesUrl: current.tracing.tracesUrl,
    release: async () => {
      if (released) return;
      released = true;
      current.holders -= 1;
      if (current.holders > 0) return;
      if (shared === current) shared = undefined;
      await current.tracing.shutdown();
    },
  };
}
