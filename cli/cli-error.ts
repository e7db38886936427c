/**
 * Typed CLI errors. Commands throw them; `main.ts` turns any error into one line on stderr
 * and a non-zero exit code, so nothing deep inside calls `process.exit`.
 */
export class CliError extends Error {
  /** The process exit code: 1 for a failed operation, 2 for a usage mistake. */
  readonly exitCode: number;
  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = options.exitCode ?? 1;
  }
}

/** The command line itself is wrong (a bad flag value, a missing choice). Exit code 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, { exitCode: 2 });
  }
}

/** The service answered with an error body `{"error": {"code", "message"}}`. */
export class ApiError extends CliError {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(`${message} (${code}, HTTP ${status})`);
    this.status = status;
    this.code = code;
  }
}

/** The one line shown on stderr for an error, and the exit code that goes with it. */
export function describeError(error: unknown): { line: string; exitCode: number } {
  if (error instanceof CliError) return { line: `harness: ${error.message}`, exitCode: error.exitCode };
  const message = error instanceof Error ? error.message : String(error);
  return { line: `harness: ${message}`, exitCode: 1 };
}
