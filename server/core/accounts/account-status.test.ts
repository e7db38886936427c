import { describe, expect, it } from 'vitest';
import type { AccountRecord } from './account.js';
import { AccountDisabledError, accountStatusCheck } from './account-status.js';

const account = (disabled: boolean): AccountRecord => ({ accountId: 'acc_1', username: 'u', description: '', secretHash: 'h', disabled, createdAt: '', updatedAt: '' });

describe('accountStatusCheck', () => {
  it('passes an enabled account, refuses a disabled one and an unknown one', async () => {
    await expect(accountStatusCheck(async () => account(false))('acc_1')).resolves.toBeUndefined();
    await expect(accountStatusCheck(async () => account(true))('acc_1')).rejects.toBeInstanceOf(AccountDisabledError);
    await expect(accountStatusCheck(async () => undefined)('acc_1')).rejects.toMatchObject({ code: 'not_found' });
  });
});
