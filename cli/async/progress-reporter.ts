import type { CliContext } from '../cli-context.js';
import { isTerminal } from '../is-terminal.js';
import { statusLabel, type EventStatus } from './event-status.js';

/** Shows the progress of a `--wait`. */
export interface ProgressReporter {
  update(event: EventStatus): void;
  stop(): void;
}

/**
 * Status changes as plain lines on stderr (`event evt_1: running`), so stdout carries only
 * the answer: for pipes, files and `--json`.
 */
export function lineProgress(context: CliContext, eventId: string): ProgressReporter {
  let last: string | undefined;
  return {
    update(event) {
      const label = statusLabel(event);
      if (label === last) return;
      last = label;
      context.stderr.write(`event ${eventId}: ${label}\n`);
    },
    stop() {},
  };
}

/** The Ink spinner when stdout is a terminal and the output is text; plain lines otherwise. */
export async function createProgressReporter(context: CliContext, eventId: string, options: { json?: boolean }): Promise<ProgressReporter> {
  if (options.json || !isTerminal(context.stdout)) return lineProgress(context, eventId);
  // Loaded only here, so a pipe or a test never pulls Ink and React in.
  const { startInkProgress } = await import('./ink-progress.js');
  return startInkProgress(context.stdout as NodeJS.WriteStream, eventId);
}
