import { describe, expect, it } from 'vitest';
import { accountNatsCredentials, isAccountInbox } from './account-nats-credentials.js';

const stageSecret = 'a-stage-secret-of-at-least-32-characters';

describe('accountNatsCredentials', () => {
  it('derives the same credentials from the same secret and account', () => {
    const first = accountNatsCredentials(stageSecret, 'acc_1');
    const second = accountNatsCredentials(stageSecret, 'acc_1');
    expect(second.password).toBe(first.password);
    expect(first.password).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first).toMatchObject({ accountId: 'acc_1', user: 'account-acc_1', inboxPrefix: '_INBOX.acc_1', subjectPrefix: 'harness.v1.acc_1' });
    expect(first.chatSubject('agent-7')).toBe('harness.v1.acc_1.agent-7.chat');
  });

  it('gives each account, and each stage secret, a different password', () => {
    const passwords = new Set([
      accountNatsCredentials(stageSecret, 'acc_1').password,
      accountNatsCredentials(stageSecret, 'acc_2').password,
      accountNatsCredentials(`${stageSecret}-other`, 'acc_1').password,
    ]);
    expect(passwords.size).toBe(3);
  });

  it('refuses a short stage secret, and ids that would widen a subject', () => {
    expect(() => accountNatsCredentials('short', 'acc_1')).toThrow(/at least 32/);
    for (const accountId of ['acc.1', '*', '>', '', 'a b']) expect(() => accountNatsCredentials(stageSecret, accountId)).toThrow(/accountId/);
    expect(() => accountNatsCredentials(stageSecret, 'acc_1').chatSubject('agent.>')).toThrow(/agentId/);
  });

  it("tells an account's own inbox from anyone else's", () => {
    expect(isAccountInbox('acc_1', '_INBOX.acc_1.abc.1')).toBe(true);
    expect(isAccountInbox('acc_1', '_INBOX.acc_2.abc.1')).toBe(false);
    expect(isAccountInbox('acc_1', '_INBOX.acc_10.abc')).toBe(false);
    expect(isAccountInbox('acc_1', '_INBOX.acc_1')).toBe(false);
    expect(isAccountInbox('acc_1', '_INBOX.acc_1.>')).toBe(false);
  });
});
