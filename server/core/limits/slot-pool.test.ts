import { describe, expect, it } from 'vitest';
import { MemorySlotPool } from './slot-pool.js';

describe('MemorySlotPool', () => {
  it('gives at most capacity slots per key, each given back once however often it is called', async () => {
    const pool = new MemorySlotPool(2);
    const first = await pool.take('a');
    const second = await pool.take('a');
    expect([first.taken, second.taken]).toEqual([true, true]);
    expect(await pool.take('a')).toEqual({ taken: false, active: 2 });
    expect((await pool.take('b')).taken).toBe(true);
    if (!first.taken) throw new Error('unreachable');
    first.giveBack();
    first.giveBack();
    expect((await pool.take('a')).taken).toBe(true);
    expect(await pool.take('a')).toEqual({ taken: false, active: 2 });
  });
});
