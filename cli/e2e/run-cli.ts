import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';

/** The repository root: the CLI runs from source there, as `npx tsx cli/main.ts` does in dev. */
export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Environment for a child CLI: its own config folder, no profile or URLs from the caller's shell, and not "run by npm" (`npx vitest` sets npm_command, which makes printed commands start with `npx`). */
export function cliEnvironment(configHome: string, extra: Record<string, string> = {}): Record<string, string> {
  return { XDG_CONFIG_HOME: configHome, HARNESS_PROFILE: '', HARNESS_ACCOUNT_URL: '', HARNESS_AGENT_URL: '', npm_command: '', ...extra };
}

/** Starts `harness <args>` as a child process (for long-running commands such as `serve`). */
export function spawnCli(args: string[], env: Record<string, string>, input?: string): ResultPromise<{ reject: false }> {
  return execa(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args], {
    cwd: repositoryRoot,
    env,
    input: input ?? '',
    stripFinalNewline: false,
    reject: false,
  }) as ResultPromise<{ reject: false }>;
}

/** Runs `harness <args>` as a child process to its end. */
export async function runCli(args: string[], env: Record<string, string>, input?: string): Promise<CliRun> {
  const result = await spawnCli(args, env, input);
  return { exitCode: result.exitCode ?? 1, stdout: String(result.stdout), stderr: String(result.stderr) };
}
