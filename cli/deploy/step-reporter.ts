import type { CliContext, TextWriter } from '../cli-context.js';
import { isTerminal } from '../is-terminal.js';
import { formatSeconds, type StepReporter, type StepState } from './deploy-steps.js';

/** One plain line per step change on `writer` (stderr): for pipes, CI logs and `--json`. */
export function lineStepReporter(writer: TextWriter): StepReporter {
  const shown = new Map<string, string>();
  return {
    update(steps) {
      for (const step of steps) {
        if (step.status === 'pending' || shown.get(step.name) === step.status) continue;
        shown.set(step.name, step.status);
        writer.write(`${stepLine(step)}\n`);
      }
    },
    stop() {},
  };
}

/** `✓ build  12.3 s`, `✗ lint  4.0 s`, `- typecheck  skipped (--skip-checks)`, `… deploy`. */
export function stepLine(step: StepState): string {
  const time = step.elapsedMs === undefined ? '' : `  ${formatSeconds(step.elapsedMs)}`;
  const note = step.note ? `  (${step.note})` : '';
  switch (step.status) {
    case 'running':
      return `… ${step.name}`;
    case 'done':
      return `✓ ${step.name}${time}${note}`;
    case 'failed':
      return `✗ ${step.name}${time}`;
    case 'skipped':
      return `- ${step.name}  skipped${note}`;
    default:
      return `  ${step.name}`;
  }
}

/** The Ink step list when stdout is a terminal and the output is text; plain lines on stderr otherwise. */
export async function createStepReporter(context: CliContext, options: { json?: boolean }): Promise<StepReporter> {
  if (options.json || !isTerminal(context.stdout)) return lineStepReporter(context.stderr);
  // Loaded only here, so a pipe or a test never pulls Ink and React in.
  const { startInkStepReporter } = await import('./ink-step-reporter.js');
  return startInkStepReporter(context.stdout as NodeJS.WriteStream);
}
