import { describe, expect, it } from 'vitest';
import { isTransientDatabaseError, waitForDatabase } from './wait-for-database.js';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const badPassword = Object.assign(new Error('password authentication failed for user "harness"'), { code: '28P01' });

describe('waitForDatabase', () => {
  it('tries again while the database is not there yet, then goes on', async () => {
    let attempts = 0;
    await waitForDatabase(
      async () => {
        attempts += 1;
        if (attempts < 3) throw refused;
      },
      { waitMilliseconds: 10_000 },
    );
    expect(attempts).toBe(3);
  });

  it('fails at once on a mistake waiting cannot mend, and after the wait on one it might', async () => {
    let attempts = 0;
    const failing = (error: Error) => async () => {
      attempts += 1;
      throw error;
    };
    await expect(waitForDatabase(failing(badPassword), { waitMilliseconds: 10_000 })).rejects.toBe(badPassword);
    expect(attempts).toBe(1);
    await expect(waitForDatabase(failing(refused), { waitMilliseconds: 0 })).rejects.toBe(refused);
    expect(isTransientDatabaseError({ code: '57P03' })).toBe(true);
    expect(isTransientDatabaseError(new Error('no code'))).toBe(false);
  });
});
