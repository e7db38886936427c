/**
 * The logging seam of the core. The service passes Fastify's pino logger (which has this
 * shape); tests pass `silentLogger` or a recorder. Log objects, never secrets: callers log
 * ids, names, durations and status codes only.
 */
export interface Logger {
  info(fields: Record<string, unknown>, message?: string): void;
  warn(fields: Record<string, unknown>, message?: string): void;
  error(fields: Record<string, unknown>, message?: string): void;
  debug(fields: Record<string, unknown>, message?: string): void;
}

const ignore = (): void => {};

export const silentLogger: Logger = { info: ignore, warn: ignore, error: ignore, debug: ignore };
