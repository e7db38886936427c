import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../logger.js';
import { PendingDeliverySweeps } from './pending-delivery-sweeps.js';

describe('PendingDeliverySweeps', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('alone: sweeps once after a failed read, and again while the sweep fails', async () => {
    const outcomes = [false, true];
    let sweeps = 0;
    const sweepsOf = new PendingDeliverySweeps({
      shared: false,
      sweepMs: 1_000,
      logger: silentLogger,
      sweep: async () => {
        sweeps += 1;
        if (!outcomes.shift()) throw new Error('storage unavailable');
      },
    });
    sweepsOf.start();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(sweeps).toBe(0);
    sweepsOf.readFailed();
    sweepsOf.readFailed();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sweeps).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sweeps).toBe(2);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(sweeps).toBe(2);
    sweepsOf.stop();
  });

  it('on replicas: sweeps every sweepMs until stopped', async () => {
    let sweeps = 0;
    const sweepsOf = new PendingDeliverySweeps({ shared: true, sweepMs: 1_000, logger: silentLogger, sweep: async () => void (sweeps += 1) });
    sweepsOf.start();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(sweeps).toBe(3);
    sweepsOf.stop();
    sweepsOf.readFailed();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(sweeps).toBe(3);
  });
});
