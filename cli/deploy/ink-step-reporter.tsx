import { render } from 'ink';
import type { StepReporter, StepState } from './deploy-steps.js';
import { DeployProgress } from './deploy-progress.js';

const frameMs = 80;

/** The step list on a terminal, redrawn on a timer; the last frame stays on screen. */
export function startInkStepReporter(stdout: NodeJS.WriteStream): StepReporter {
  let steps: readonly StepState[] = [];
  let frame = 0;
  let runningSince = Date.now();
  let runningName: string | undefined;
  const view = () => <DeployProgress steps={steps} frame={frame} runningMs={Date.now() - runningSince} />;
  const app = render(view(), { stdout, exitOnCtrlC: false, patchConsole: false });
  const timer = setInterval(() => {
    frame += 1;
    app.rerender(view());
  }, frameMs);
  return {
    update(next) {
      steps = next;
      const running = next.find((step) => step.status === 'running')?.name;
      if (running !== runningName) {
        runningName = running;
        runningSince = Date.now();
      }
      app.rerender(view());
    },
    stop() {
      clearInterval(timer);
      app.rerender(view());
      app.unmount();
    },
  };
}
