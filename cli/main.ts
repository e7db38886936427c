import { homedir } from 'node:os';
import { CommanderError } from 'commander';
import { packageVersion } from '../server/core/package-version.js';
import type { CliContext } from './cli-context.js';
import { describeError } from './cli-error.js';
import { buildProgram } from './index.js';

/**
 * The `harness` entry point (`bin/harness.js` imports the compiled copy). Everything that
 * fails ends here: one line on stderr and a non-zero exit code.
 */

/** A signal repeated within this time is the same Ctrl-C delivered twice, not a second press. */
const repeatedSignalWindowMs = 1_000;

/**
 * Resolves on the first SIGINT/SIGTERM; a second one while stopping forces the exit. Under
 * `npx` or `npm run` one Ctrl-C arrives twice (the terminal signals the whole foreground
 * group, and npm forwards the signal to its child as well), so a repeat within a second is
 * ignored.
 */
function waitForShutdown(): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
      const firstAt = Date.now();
      const force = (code: number) => (): void => {
        if (Date.now() - firstAt >= repeatedSignalWindowMs) process.exit(code);
      };
      process.on('SIGINT', force(130)).on('SIGTERM', force(143));
      resolve(signal);
    };
    process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  });
}

const context: CliContext = {
  env: process.env,
  homeDir: homedir(),
  stdout: process.stdout,
  stderr: process.stderr,
  // A getter: touching process.stdin opens it, which only the commands that read it should do.
  get stdin() {
    return process.stdin;
  },
  waitForShutdown,
};

try {
  await buildProgram(context, packageVersion).parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander already printed its message (or the help); 2 is the usual usage-error code.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else {
    const { line, exitCode } = describeError(error);
    process.stderr.write(`${line}\n`);
    if (process.env.HARNESS_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    process.exitCode = exitCode;
  }
}
