import { renderAnimated } from '../animated-view.js';
import type { StepReporter, StepState } from './deploy-steps.js';
import { DeployProgress } from './deploy-progress.js';

/** The step list on a terminal, redrawn on a timer; the last frame stays on screen. */
export function startInkStepReporter(stdout: NodeJS.WriteStream): StepReporter {
  let steps: readonly StepState[] = [];
  let runningSince = Date.now();
  let runningName: string | undefined;
  const view = renderAnimated(stdout, (frame) => <DeployProgress steps={steps} frame={frame} runningMs={Date.now() - runningSince} />);
  return {
    update(next) {
      steps = next;
      const running = next.find((step) => step.status === 'running')?.name;
      if (running !== runningName) {
        runningName = running;
        runningSince = Date.now();
      }
      view.redraw();
    },
    stop() {
      view.stop({ clear: false });
    },
  };
}
