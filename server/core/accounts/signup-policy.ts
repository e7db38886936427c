import { isIP } from 'node:net';
import { ForbiddenError } from '../errors.js';
import { memoryRateBudget, type RateBudget } from '../limits/rate-budget.js';
import { takeBudget } from '../limits/take-budget.js';

/** `open`: anyone may create an account; `admin`: only a caller holding the admin secret. */
export type SignupMode = 'open' | 'admin';

/** Who may call `POST /accounts`, and how often. */
export interface SignupSettings {
  /** `HARNESS_SIGNUP` (default `open`). */
  mode: SignupMode;
  /** `HARNESS_LIMIT_SIGNUPS_PER_MINUTE`: sign-ups per client address per minute (default 10); the admin is not counted. */
  perMinutePerClient: number;
}

export const defaultSignupSettings: SignupSettings = { mode: 'open', perMinutePerClient: 10 };

/** Reads `HARNESS_SIGNUP` and `HARNESS_LIMIT_SIGNUPS_PER_MINUTE`; a bad value is a start error naming the variable. */
export function signupSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): SignupSettings {
  const settings = { ...defaultSignupSettings };
  const mode = environment.HARNESS_SIGNUP;
  if (mode !== undefined && mode !== '') {
    if (mode !== 'open' && mode !== 'admin') throw new Error(`HARNESS_SIGNUP must be "open" or "admin" (got ${JSON.stringify(mode)}).`);
    settings.mode = mode;
  }
  const perMinute = environment.HARNESS_LIMIT_SIGNUPS_PER_MINUTE;
  if (perMinute !== undefined && perMinute !== '') {
    const parsed = Number(perMinute);
    if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`HARNESS_LIMIT_SIGNUPS_PER_MINUTE must be a positive integer (got ${JSON.stringify(perMinute)}).`);
    settings.perMinutePerClient = parsed;
  }
  return settings;
}

/**
 * The rate-limit key of a client address. An IPv6 client usually holds a whole /64, so one
 * key per /64: otherwise it could take a fresh budget for every address it owns. An
 * IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function signupClientKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIP(address) !== 6) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups] : headGroups;
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** What `POST /accounts` checks before any work: the mode, then the caller's budget. */
export class SignupPolicy {
  private readonly budget: RateBudget;

  /** `budget`: where sign-ups are counted (default: in memory, `perMinutePerClient` per client). */
  constructor(
    readonly settings: SignupSettings,
    now?: () => number,
    budget?: RateBudget,
  ) {
    this.budget = budget ?? memoryRateBudget(settings.perMinutePerClient, now);
  }

  /**
   * Throws `ForbiddenError` when sign-up is closed and the caller is not the admin, or
   * `RateLimitedError` when the caller's address has used its budget. The admin is neither
   * refused nor counted.
   */
  async check(caller: { address: string; isAdmin: boolean }): Promise<void> {
    if (caller.isAdmin) return;
    if (this.settings.mode === 'admin') {
      throw new ForbiddenError('Sign-up is closed on this service: POST /accounts needs the admin secret as the bearer.');
    }
    await takeBudget(this.budget, signupClientKey(caller.address), 'sign-ups', 'this client address');
  }
}
