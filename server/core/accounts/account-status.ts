import { HarnessError, NotFoundError } from '../errors.js';
import type { AccountRecord } from './account.js';

/**
 * Work for a disabled account was refused. Background drivers (webhooks, cron, the async
 * worker, continuations) meet it instead of a bearer check; on HTTP it reads like the bearer
 * refusal a disabled account gets everywhere else.
 */
export class AccountDisabledError extends HarnessError {
  readonly accountId: string;
  constructor(accountId: string) {
    super('unauthorized', 401, 'This account is disabled; it runs no turns.');
    this.accountId = accountId;
  }
}

/** Throws `AccountDisabledError` (or `NotFoundError` for an unknown account); otherwise resolves. */
export type AccountStatusCheck = (accountId: string) => Promise<void>;

/**
 * The one check every turn driver shares: load the account and refuse when it is disabled.
 * Read from storage each time, so disabling takes effect for the next turn on every replica.
 */
export function accountStatusCheck(load: (accountId: string) => Promise<AccountRecord | undefined>): AccountStatusCheck {
  return async (accountId) => {
    const account = await load(accountId);
    if (!account) throw new NotFoundError('No such account.');
    if (account.disabled) throw new AccountDisabledError(accountId);
  };
}
