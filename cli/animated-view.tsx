import { render } from 'ink';
import type { ReactElement } from 'react';

const frameMs = 80;

export interface AnimatedView {
  /** Draw again now (the state the view reads has changed). */
  redraw(): void;
  /** Stop the timer; `clear` erases the view, otherwise its last frame stays on screen. */
  stop(options: { clear: boolean }): void;
}

/**
 * An Ink view redrawn every 80 ms with the next frame number (for spinners). It takes no
 * stdin, so Ctrl-C reaches the command as SIGINT.
 */
export function renderAnimated(stdout: NodeJS.WriteStream, view: (frame: number) => ReactElement): AnimatedView {
  let frame = 0;
  const app = render(view(frame), { stdout, exitOnCtrlC: false, patchConsole: false });
  const timer = setInterval(() => {
    frame += 1;
    app.rerender(view(frame));
  }, frameMs);
  return {
    redraw: () => app.rerender(view(frame)),
    stop({ clear }) {
      clearInterval(timer);
      if (clear) app.clear();
      else app.rerender(view(frame));
      app.unmount();
    },
  };
}
