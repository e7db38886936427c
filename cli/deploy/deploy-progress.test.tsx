import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { DeployProgress } from './deploy-progress.js';

describe('DeployProgress', () => {
  it('shows each step with its mark, time and note; the running one with a spinner frame', () => {
    const { lastFrame } = render(
      <DeployProgress
        frame={1}
        runningMs={2_345}
        steps={[
          { name: 'typecheck', status: 'skipped', note: '--skip-checks' },
          { name: 'build', status: 'done', elapsedMs: 12_300 },
          { name: 'start services', status: 'running' },
          { name: 'write outputs', status: 'pending' },
        ]}
      />,
    );
    expect(lastFrame()).toBe(['- typecheck  skipped  (--skip-checks)', '✓ build  12.3 s', '⠙ start services  2.3 s', '· write outputs'].join('\n'));
  });

  it('marks a failed step', () => {
    const { lastFrame } = render(<DeployProgress frame={0} runningMs={0} steps={[{ name: 'lint', status: 'failed', elapsedMs: 4_000 }]} />);
    expect(lastFrame()).toBe('✗ lint  4.0 s');
  });
});
