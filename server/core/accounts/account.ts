/** An account as stored. The secret itself is never stored: only its hash. */
export interface AccountRecord {
  accountId: string;
  username: string;
  description: string;
  secretHash: string;
  disabled: boolean;
  /** The operator's daily token limit for this account, over `HARNESS_LIMIT_TOKENS_PER_DAY`; absent: that default. */
  tokensPerDay?: number;
  createdAt: string;
  updatedAt: string;
}

/** What responses show of an account. */
export interface AccountView {
  accountId: string;
  username: string;
  description: string;
  disabled: boolean;
  /** Set only when the operator gave the account its own daily token limit. */
  tokensPerDay?: number;
  createdAt: string;
}

export function viewAccount(account: AccountRecord): AccountView {
  return {
    accountId: account.accountId,
    username: account.username,
    description: account.description,
    disabled: account.disabled,
    ...(account.tokensPerDay !== undefined ? { tokensPerDay: account.tokensPerDay } : {}),
    createdAt: account.createdAt,
  };
}

/** A username: 1-64 characters of A-Z a-z 0-9 _ . - */
export const usernamePattern = /^[A-Za-z0-9_.-]{1,64}$/;
