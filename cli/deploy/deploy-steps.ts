import { spawn } from 'node:child_process';
import { CliError } from '../cli-error.js';
import { lastLines } from './file-tail.js';

/** A step's state, as the progress display shows it. */
export type StepStatus = 'pending' | 'running' | 'done' | 'failed' | 'skipped';

export interface StepState {
  name: string;
  status: StepStatus;
  elapsedMs?: number;
  /** A short remark: why it was skipped, what it did ("stopped pid 123"). */
  note?: string;
}

/** Shows the steps' progress; `update` gets every state change. */
export interface StepReporter {
  update(steps: readonly StepState[]): void;
  stop(): void;
}

export interface DeployStep {
  name: string;
  /** A reason to skip the step (e.g. `--skip-checks`); the step is then not run. */
  skip?: string;
  /** Does the work; may return a note for the display. */
  run(): Promise<string | void>;
}

/** A step failed: the message names it and carries the tail of its output. */
export class DeployStepError extends CliError {
  readonly step: string;
  constructor(step: string, elapsedMs: number, detail: string, cause?: unknown) {
    super(`deploy step "${step}" failed after ${formatSeconds(elapsedMs)}: ${detail}`, { cause });
    this.step = step;
  }
}

/** `12.3 s`. */
export function formatSeconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(1)} s`;
}

/** The output of a command that failed: its exit and the last lines it printed. */
export class CommandFailedError extends Error {
  constructor(
    readonly commandLine: string,
    readonly exitDescription: string,
    readonly outputTail: string,
  ) {
    super(`${commandLine} ${exitDescription}. Last lines of its output:\n${outputTail}`);
    this.name = 'CommandFailedError';
  }
}

const maxKeptOutput = 512 * 1024;

/** Runs a command with its output captured (stdout and stderr interleaved); rejects with the tail on failure. */
export function runCommand(command: string, args: readonly string[], options: { cwd: string; environment: Record<string, string | undefined>; tailLines?: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.environment as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.length > maxKeptOutput) output = output.slice(-maxKeptOutput);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const commandLine = [command, ...args].join(' ');
    child.once('error', (error) => reject(new CommandFailedError(commandLine, `could not start (${error.message})`, '')));
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new CommandFailedError(commandLine, signal ? `was killed by ${signal}` : `exited with code ${code}`, lastLines(output, options.tailLines ?? 40)));
    });
  });
}

/**
 * Runs the steps in order, reporting each one's state and time. The first failure stops
 * the run and is thrown as a `DeployStepError` naming the step. Returns the final states.
 */
export async function runSteps(steps: readonly DeployStep[], reporter: StepReporter): Promise<StepState[]> {
  const states: StepState[] = steps.map((step) => ({ name: step.name, status: 'pending' }));
  const publish = (): void => reporter.update(states.map((state) => ({ ...state })));
  publish();
  try {
    for (const [index, step] of steps.entries()) {
      const state = states[index]!;
      if (step.skip !== undefined) {
        Object.assign(state, { status: 'skipped', note: step.skip });
        publish();
        continue;
      }
      const startedAt = Date.now();
      Object.assign(state, { status: 'running' });
      publish();
      try {
        const note = await step.run();
        Object.assign(state, { status: 'done', elapsedMs: Date.now() - startedAt, ...(note ? { note } : {}) });
        publish();
      } catch (error) {
        const elapsedMs = Date.now() - startedAt;
        Object.assign(state, { status: 'failed', elapsedMs });
        publish();
        throw new DeployStepError(step.name, elapsedMs, error instanceof Error ? error.message : String(error), error);
      }
    }
  } finally {
    reporter.stop();
  }
  return states;
}
