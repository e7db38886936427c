/**
 * Every command the CLI prints for the user to run next ("continue with: ...", "run ...
 * first") is built here, so that it runs as printed:
 *
 * - Under npm (`npx harness`, `npm exec`, `npm run deploy`) the `harness` binary is on the
 *   PATH only of npm's child process, not of the user's shell, so the command starts with
 *   `npx harness`; otherwise (an installed binary) with `harness`.
 * - A profile other than `default` is named again, before the subcommand
 *   (`harness --profile demo chat demo`): without it the command would use `default`.
 * - An argument the shell would split or expand (a conversation key with a space) is quoted.
 */

/** The profile a command uses when neither `--profile` nor `HARNESS_PROFILE` names one. */
export const defaultProfileName = 'default';

/** Text printed as it is, not quoted: a `<placeholder>` or `...` the user fills in. */
export interface Verbatim {
  verbatim: string;
}

export type HintArgument = string | Verbatim;

/** Builds one printed command from its arguments (after `harness` and `--profile`). */
export type CommandHint = (...args: HintArgument[]) => string;

export function verbatim(text: string): Verbatim {
  return { verbatim: text };
}

/**
 * `npm_command` is what npm sets in the environment of what it runs: `exec` for
 * `npx`/`npm exec`, `run` (npm 11) or `run-script` (older npm) for `npm run`.
 */
const npmCommandsWithoutBinOnPath = new Set(['exec', 'run', 'run-script']);

/** `npx harness` when npm started this process, else `harness`. */
export function harnessPrefix(env: Record<string, string | undefined>): string {
  return npmCommandsWithoutBinOnPath.has(env.npm_command ?? '') ? 'npx harness' : 'harness';
}

/** Characters a POSIX shell takes literally in an unquoted word. */
const plainWord = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One argument as a shell word: as it is when plain, else in single quotes. */
export function shellWord(argument: HintArgument): string {
  if (typeof argument !== 'string') return argument.verbatim;
  if (plainWord.test(argument)) return argument;
  return `'${argument.replaceAll("'", `'\\''`)}'`;
}

/**
 * The hint builder for a command run with this environment and profile. `profile` is
 * absent for commands that read no profile (serve, deploy, logs...).
 */
export function commandHint(env: Record<string, string | undefined>, profile?: string): CommandHint {
  const globalArguments = profile !== undefined && profile !== defaultProfileName ? ['--profile', profile] : [];
  return (...args) => [harnessPrefix(env), ...[...globalArguments, ...args].map(shellWord)].join(' ');
}
