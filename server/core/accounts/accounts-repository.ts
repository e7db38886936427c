import type { TableStore } from '../storage/table-store.js';
import { modifyRow } from '../storage/read-and-write.js';
import { ConditionFailedError } from '../storage/table-store.js';
import type { AccountRecord } from './account.js';

interface UsernameClaim {
  username: string;
  accountId: string;
}

type AccountsTableRow = AccountRecord | UsernameClaim;

const accountKey = 'account';
const claimKey = 'claim';

function usernamePartition(username: string): string {
  return `username:${username.toLowerCase()}`;
}

export class UsernameTakenError extends Error {
  constructor(username: string) {
    super(`The username "${username}" is already taken.`);
    this.name = 'UsernameTakenError';
  }
}

/**
 * Accounts, one partition per account, plus one partition per username holding the claim
 * that keeps usernames unique (case-insensitively) without a global index file.
 */
export class AccountsRepository {
  constructor(private readonly table: TableStore<AccountsTableRow>) {}

  async get(accountId: string): Promise<AccountRecord | undefined> {
    return (await this.table.get(accountId, accountKey))?.value as AccountRecord | undefined;
  }

  /** Claims the username, then writes the account. A claim left by a crash between the two is reclaimed. */
  async create(account: AccountRecord): Promise<void> {
    const partition = usernamePartition(account.username);
    const claim: UsernameClaim = { username: account.username, accountId: account.accountId };
    try {
      await this.table.write(partition, [{ type: 'put', key: claimKey, value: claim, expectedVersion: null }]);
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
      const existing = await this.table.get(partition, claimKey);
      const owner = existing && (await this.get((existing.value as UsernameClaim).accountId));
      if (!existing || owner) throw new UsernameTakenError(account.username);
      try {
        await this.table.write(partition, [{ type: 'put', key: claimKey, value: claim, expectedVersion: existing.version }]);
      } catch (retryError) {
        if (retryError instanceof ConditionFailedError) throw new UsernameTakenError(account.username);
        throw retryError;
      }
    }
    await this.table.write(account.accountId, [{ type: 'put', key: accountKey, value: account, expectedVersion: null }]);
  }

  /**
   * The operator's settings of an account: `disabled`, and `tokensPerDay` (`null` removes the
   * account's own limit). A compare-and-set, retried when the row changed meanwhile.
   */
  async updateSettings(accountId: string, changes: { disabled?: boolean; tokensPerDay?: number | null }, now: string): Promise<AccountRecord | undefined> {
    const written = await modifyRow(this.table, accountId, accountKey, (current) => {
      if (!current) return undefined;
      const { tokensPerDay: _previous, ...account } = current as AccountRecord;
      const tokensPerDay = changes.tokensPerDay === undefined ? (current as AccountRecord).tokensPerDay : changes.tokensPerDay;
      return { ...account, ...(changes.disabled === undefined ? {} : { disabled: changes.disabled }), ...(tokensPerDay === null || tokensPerDay === undefined ? {} : { tokensPerDay }), updatedAt: now };
    });
    return written?.value as AccountRecord | undefined;
  }

  async list(): Promise<AccountRecord[]> {
    const accounts: AccountRecord[] = [];
    for (const partition of await this.table.listPartitions()) {
      if (partition.startsWith('username:')) continue;
      const account = await this.get(partition);
      if (account) accounts.push(account);
    }
    return accounts.sort((left, right) => left.createdAt.localeCompare(right.createdAt));
  }
}
