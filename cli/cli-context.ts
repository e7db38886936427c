/**
 * Everything a command touches outside its own arguments. `main.ts` fills it from `process`;
 * tests pass their own streams, environment and shutdown trigger, so a command never reads
 * `process` directly and can run in-process.
 */
export interface TextWriter {
  write(text: string): unknown;
}

export interface CliContext {
  /** Environment variables (`HARNESS_PROFILE`, `XDG_CONFIG_HOME`, service URLs...). */
  env: Record<string, string | undefined>;
  /** The user's home folder, for the default `~/.config/harness/`. */
  homeDir: string;
  stdout: TextWriter;
  stderr: TextWriter;
  /** Where `--api-key-stdin` and `--file -` read from. */
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Resolves with the signal's name when the user asks a long-running command to stop. */
  waitForShutdown(): Promise<string>;
}
