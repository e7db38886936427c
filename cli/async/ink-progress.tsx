import { renderAnimated } from '../animated-view.js';
import type { EventStatus } from './event-status.js';
import type { ProgressReporter } from './progress-reporter.js';
import { StatusSpinner } from './status-spinner.js';

/** The spinner on a terminal: redrawn on a timer, and erased when polling ends. */
export function startInkProgress(stdout: NodeJS.WriteStream, eventId: string): ProgressReporter {
  const startedAt = Date.now();
  let event: EventStatus | undefined;
  const view = renderAnimated(stdout, (frame) => <StatusSpinner eventId={eventId} event={event} frame={frame} elapsedSeconds={(Date.now() - startedAt) / 1000} />);
  return {
    update(next) {
      event = next;
      view.redraw();
    },
    stop() {
      // Erases the spinner line, so the final answer is printed where it stood.
      view.stop({ clear: true });
    },
  };
}
