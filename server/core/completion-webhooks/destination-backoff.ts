/** How long a failing destination is left alone: doubling from `baseMs` up to `maxMs`. */
export interface DestinationBackoffSettings {
  baseMs: number;
  maxMs: number;
}

interface FailingDestination {
  /** Failed attempts in a row. */
  failures: number;
  /** No attempt before this (epoch milliseconds). */
  notBefore: number;
  /** One attempt (the probe) is under way: the others wait for its outcome. */
  probing: boolean;
}

/** Destinations remembered at most; beyond it the one that failed first is forgotten. */
const maxRemembered = 10_000;

/** Whether an attempt to a destination may start now. */
export type DestinationAdmission = { go: true } | { go: false; waitMs: number };

/**
 * A circuit breaker per receiver (the URL's origin), in this process: after an attempt to it
 * times out or fails, the next ones wait (1 s, 2 s, 4 s... up to `maxMs`), then one attempt at a
 * time probes it until one succeeds. A receiver that hangs therefore costs one slot per backoff
 * period, not one per delivery queued for it, and the deliveries that wait hold no slot.
 */
export class DestinationBackoff {
  private readonly failing = new Map<string, FailingDestination>();

  constructor(
    private readonly settings: DestinationBackoffSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** May an attempt to `url` start now? When it may and the destination is failing, that attempt is its probe. */
  admit(url: string): DestinationAdmission {
    const state = this.failing.get(destinationOf(url));
    if (state === undefined) return { go: true };
    const now = this.now();
    if (state.notBefore > now) return { go: false, waitMs: state.notBefore - now };
    if (state.probing) return { go: false, waitMs: this.delayAfter(state.failures) };
    state.probing = true;
    return { go: true };
  }

  /** An attempt to `url` ended: answered (any status the receiver chose), or failed (no answer, a 5xx, a 429). */
  report(url: string, outcome: 'answered' | 'failed'): void {
    const destination = destinationOf(url);
    if (outcome === 'answered') {
      this.failing.delete(destination);
      return;
    }
    const state = this.failing.get(destination) ?? { failures: 0, notBefore: 0, probing: false };
    state.failures += 1;
    state.probing = false;
    state.notBefore = this.now() + this.delayAfter(state.failures);
    this.failing.delete(destination);
    this.failing.set(destination, state);
    if (this.failing.size > maxRemembered) this.failing.delete(this.failing.keys().next().value!);
  }

  private delayAfter(failures: number): number {
    return Math.min(this.settings.maxMs, this.settings.baseMs * 2 ** Math.min(30, Math.max(0, failures - 1)));
  }
}

/** The receiver a URL names: scheme, host and port (one server, whatever its paths). */
function destinationOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
