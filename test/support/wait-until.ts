export interface WaitUntilOptions {
  /** How long to keep asking: a bound on a hang, not a measured figure. 30 s unless given. */
  timeoutMs?: number;
  /** The pause between two checks. 50 ms unless given. */
  intervalMs?: number;
}

/**
 * Calls `check` until it returns a value other than `undefined`, and returns that value; throws
 * `timed out waiting for <what>` once `timeoutMs` have gone by. `check` gets one more call after
 * the time is up, so a slow check that began in time is not cut short.
 */
export async function waitUntil<T>(what: string, check: () => Promise<T | undefined> | T | undefined, options: WaitUntilOptions = {}): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 50 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const late = Date.now() > deadline;
    const value = await check();
    if (value !== undefined) return value;
    if (late) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
