import { randomBytes } from 'node:crypto';
import { ConflictError, InvalidRequestError, NotFoundError, UnauthorizedError } from '../errors.js';
import type { RateBudget } from '../limits/rate-budget.js';
import { accountIdFromSecret, generateAccountSecret, hashSecret, secretMatchesHash, secretsEqual } from '../secrets/secret-hash.js';
import { type AccountRecord, type AccountView, usernamePattern, viewAccount } from './account.js';
import { AccountsRepository, UsernameTakenError } from './accounts-repository.js';
import { accountStatusCheck, type AccountStatusCheck } from './account-status.js';
import { defaultSignupSettings, SignupPolicy, type SignupSettings } from './signup-policy.js';

export interface CreatedAccount extends AccountView {
  /** Shown once, in the answer to POST /accounts; only its hash is stored. */
  secret: string;
}

/** Told about each new account (the embedded nats-server adds its user); awaited, failures are the listener's to handle. */
export type AccountCreatedListener = (account: AccountView) => Promise<void> | void;

/** Account creation, lookup by bearer secret, and the admin's view. */
export class Accounts {
  private readonly createdListeners = new Set<AccountCreatedListener>();
  /** Refuses a disabled (or unknown) account: every driver that starts a turn without a bearer calls it. */
  readonly requireEnabled: AccountStatusCheck;
  /** Who may sign up and how often (`HARNESS_SIGNUP`, `HARNESS_LIMIT_SIGNUPS_PER_MINUTE`). */
  readonly signup: SignupPolicy;

  constructor(
    private readonly repository: AccountsRepository,
    private readonly adminSecret: string,
    private readonly now: () => Date = () => new Date(),
    signupSettings: SignupSettings = defaultSignupSettings,
    /** Where sign-ups per client are counted (default: in memory). */
    signupBudget?: RateBudget,
  ) {
    this.signup = new SignupPolicy(signupSettings, undefined, signupBudget);
    this.requireEnabled = accountStatusCheck((accountId) => this.repository.get(accountId));
  }

  async create(input: { username: string; description: string }): Promise<CreatedAccount> {
    if (!usernamePattern.test(input.username)) {
      throw new InvalidRequestError('username must be 1-64 characters of A-Z, a-z, 0-9, "_", "." and "-"');
    }
    const accountId = `acc_${randomBytes(10).toString('hex')}`;
    const secret = generateAccountSecret(accountId);
    const createdAt = this.now().toISOString();
    const account: AccountRecord = {
      accountId,
      username: input.username,
      description: input.description,
      secretHash: hashSecret(secret),
      disabled: false,
      createdAt,
      updatedAt: createdAt,
    };
    try {
      await this.repository.create(account);
    } catch (error) {
      if (error instanceof UsernameTakenError) throw new ConflictError(error.message);
      throw error;
    }
    const view = viewAccount(account);
    // Awaited, so a client that got its secret can use it at once (for example its NATS user).
    await Promise.allSettled([...this.createdListeners].map(async (listener) => listener(view)));
    return { ...view, secret };
  }

  /** Calls `listener` after each account is created; returns a function that removes it. */
  onCreated(listener: AccountCreatedListener): () => void {
    this.createdListeners.add(listener);
    return () => this.createdListeners.delete(listener);
  }

  /** The account a bearer secret belongs to; 401 for anything else, disabled accounts included. */
  async authenticate(secret: string | undefined): Promise<AccountRecord> {
    const accountId = secret ? accountIdFromSecret(secret) : undefined;
    const account = accountId ? await this.repository.get(accountId) : undefined;
    // Hash and compare even when the account is unknown, so both paths cost the same.
    const matches = secretMatchesHash(secret ?? '', account?.secretHash ?? hashSecret(randomBytes(16).toString('hex')));
    if (!account || !matches || account.disabled) throw new UnauthorizedError();
    return account;
  }

  /** Checks a `POST /accounts` caller before any work is done; throws 403 or 429. */
  async checkSignup(caller: { address: string; bearer: string | undefined }): Promise<void> {
    await this.signup.check({ address: caller.address, isAdmin: this.isAdminSecret(caller.bearer) });
  }

  isAdminSecret(secret: string | undefined): boolean {
    return secret !== undefined && secretsEqual(secret, this.adminSecret);
  }

  async get(accountId: string): Promise<AccountView> {
    const account = await this.repository.get(accountId);
    if (!account) throw new NotFoundError('No such account.');
    return viewAccount(account);
  }

  async list(): Promise<AccountView[]> {
    return (await this.repository.list()).map(viewAccount);
  }

  /** The operator's changes to an account (`PATCH /admin/accounts/{accountId}`). */
  async updateSettings(accountId: string, changes: { disabled?: boolean; tokensPerDay?: number | null }): Promise<AccountView> {
    const account = await this.repository.updateSettings(accountId, changes, this.now().toISOString());
    if (!account) throw new NotFoundError('No such account.');
    return viewAccount(account);
  }

  /** The account's own daily token limit, if the operator set one. */
  async tokensPerDay(accountId: string): Promise<number | undefined> {
    return (await this.repository.get(accountId))?.tokensPerDay;
  }

  async setDisabled(accountId: string, disabled: boolean): Promise<AccountView> {
    return this.updateSettings(accountId, { disabled });
  }
}
