import { describe, expect, it } from 'vitest';
import { probeBubblewrap } from './bubblewrap-probe.js';

describe('probeBubblewrap', () => {
  // CI installs bubblewrap: a machine where it cannot run fails here with the probe's reason.
  it('runs a command inside bwrap on this machine', async () => {
    const status = await probeBubblewrap();
    if (!status.available) throw new Error(`bubblewrap is unavailable: ${status.reason}`);
    expect(status.version).toMatch(/^\d+\.\d+/);
    expect(status.executablePath).toMatch(/\/bwrap$/);
  });

  it('reports a reason when bwrap is not found', async () => {
    await expect(probeBubblewrap({ searchPath: '/nonexistent' })).resolves.toEqual({ available: false, reason: 'bwrap was not found on PATH (Debian package: bubblewrap)' });
  });
});
