import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../errors.js';
import { ResumeAdmission } from './resume-admission.js';

describe('ResumeAdmission', () => {
  const turn = (accountId: string, turnId: string) => ({ accountId, agentId: 'helper', conversationKey: 'talk', turnId });

  it('bounds open resumes per turn and per account, and gives places back once', () => {
    const admission = new ResumeAdmission({ perAccount: 4, perTurn: 2 });
    const first = admission.enter(turn('acc_1', 'turn_a'));
    admission.enter(turn('acc_1', 'turn_a'));
    expect(() => admission.enter(turn('acc_1', 'turn_a'))).toThrow(RateLimitedError);
    admission.enter(turn('acc_1', 'turn_b'));
    admission.enter({ accountId: 'acc_1', agentId: 'helper', conversationKey: 'talk' });
    expect(() => admission.enter(turn('acc_1', 'turn_c'))).toThrow(/for this account/);
    // Another account is not held back by this one.
    expect(() => admission.enter(turn('acc_2', 'turn_a'))).not.toThrow();
    first.release();
    first.release();
    expect(admission.openFor('acc_1')).toBe(3);
    expect(() => admission.enter(turn('acc_1', 'turn_a'))).not.toThrow();
    expect(() => admission.enter(turn('acc_1', 'turn_a'))).toThrow(RateLimitedError);
  });
});
