import { render } from 'ink';
import type { EventStatus } from './event-status.js';
import type { ProgressReporter } from './progress-reporter.js';
import { StatusSpinner } from './status-spinner.js';

const frameMs = 80;

/** The spinner on a terminal: redrawn on a timer, and erased when polling ends. */
export function startInkProgress(stdout: NodeJS.WriteStream, eventId: string): ProgressReporter {
  const startedAt = Date.now();
  let frame = 0;
  let event: EventStatus | undefined;
  const view = () => <StatusSpinner eventId={eventId} event={event} frame={frame} elapsedSeconds={(Date.now() - startedAt) / 1000} />;
  // No stdin: the spinner takes no keys, and Ctrl-C reaches the command as SIGINT.
  const app = render(view(), { stdout, exitOnCtrlC: false, patchConsole: false });
  const timer = setInterval(() => {
    frame += 1;
    app.rerender(view());
  }, frameMs);
  return {
    update(next) {
      event = next;
      app.rerender(view());
    },
    stop() {
      clearInterval(timer);
      // Erases the spinner line, so the final answer is printed where it stood.
      app.clear();
      app.unmount();
    },
  };
}
