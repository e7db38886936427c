import { describe, expect, it } from 'vitest';
import { AccountDisabledError } from '../accounts/account-status.js';
import { TurnAdmission } from './turn-admission.js';

/** An account check that records the accounts it was asked about and refuses those in `disabled`. */
function recordingCheck(disabled: Set<string>) {
  const asked: string[] = [];
  const check = async (accountId: string) => {
    asked.push(accountId);
    if (disabled.has(accountId)) throw new AccountDisabledError(accountId);
  };
  return { asked, check };
}

describe('TurnAdmission.checkAccount', () => {
  it('reads the account when the request read nothing (webhooks, cron, the worker, continuations)', async () => {
    const { asked, check } = recordingCheck(new Set(['acc_off']));
    const admission = new TurnAdmission({ accountCheck: check });
    await admission.checkAccount('acc_on');
    await expect(admission.checkAccount('acc_off')).rejects.toBeInstanceOf(AccountDisabledError);
    expect(asked).toEqual(['acc_on', 'acc_off']);
  });

  it('takes the enabled row the request itself read for the same account, without reading it again', async () => {
    const { asked, check } = recordingCheck(new Set());
    const admission = new TurnAdmission({ accountCheck: check });
    await admission.checkAccount('acc_on', { accountId: 'acc_on', disabled: false });
    expect(asked).toEqual([]);
  });

  it('reads the account again when the request read another account, or a disabled one', async () => {
    const { asked, check } = recordingCheck(new Set(['acc_off']));
    const admission = new TurnAdmission({ accountCheck: check });
    await expect(admission.checkAccount('acc_off', { accountId: 'acc_on', disabled: false })).rejects.toBeInstanceOf(AccountDisabledError);
    await expect(admission.checkAccount('acc_off', { accountId: 'acc_off', disabled: true })).rejects.toBeInstanceOf(AccountDisabledError);
    expect(asked).toEqual(['acc_off', 'acc_off']);
  });
});
