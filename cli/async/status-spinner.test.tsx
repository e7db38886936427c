import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { spinnerFrames, StatusSpinner } from './status-spinner.js';

describe('StatusSpinner', () => {
  it('shows a frame, the status in words, the event and the elapsed seconds', () => {
    const { lastFrame } = render(<StatusSpinner eventId="evt_1" event={{ status: 'processing' }} frame={0} elapsedSeconds={3.7} />);
    expect(lastFrame()).toBe('⠋ running · evt_1 · 3s');
  });

  it('advances with the frame prop and counts pending async tools', () => {
    const { lastFrame, rerender } = render(<StatusSpinner eventId="evt_1" event={{ status: 'queued' }} frame={1} elapsedSeconds={0} />);
    expect(lastFrame()).toBe('⠙ queued · evt_1 · 0s');
    rerender(<StatusSpinner eventId="evt_1" event={{ status: 'waiting_async_tools', pendingAsyncTools: [{ resultId: 'a' }, { resultId: 'b' }] }} frame={spinnerFrames.length + 2} elapsedSeconds={12} />);
    expect(lastFrame()).toBe('⠹ waiting for 2 async tools · evt_1 · 12s');
  });

  it('says it is waiting before the first answer', () => {
    const { lastFrame } = render(<StatusSpinner eventId="evt_1" frame={0} elapsedSeconds={0} />);
    expect(lastFrame()).toBe('⠋ waiting for the first status · evt_1 · 0s');
  });
});
