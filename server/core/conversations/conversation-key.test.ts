import { describe, expect, it } from 'vitest';
import { checkConversationKey } from '../cron-jobs/cron-job-fields.js';
import { conversationKeyProblem, isValidConversationKey } from './conversation-key.js';

const keys = ['a', 'user-42', 'ü'.repeat(256), '', 'x'.repeat(257), 'tab\there', 'del\u007f', 'next-line\u0085', 'c1\u009f', 'after-c1\u00a0'];

describe('conversation keys', () => {
  it('are 1-256 characters with no C0, DEL or C1 control characters', () => {
    expect(keys.map(isValidConversationKey)).toEqual([true, true, true, false, false, false, false, false, false, true]);
    expect(conversationKeyProblem(7)).toBe('must be a string');
    expect(conversationKeyProblem('x'.repeat(257))).toBe('must be at most 256 characters (got 257)');
  });

  it('are accepted by a cron job exactly when chat accepts them', () => {
    for (const key of keys) {
      const acceptedByCron = (() => {
        try {
          checkConversationKey(key);
          return true;
        } catch {
          return false;
        }
      })();
      expect(acceptedByCron, JSON.stringify(key)).toBe(isValidConversationKey(key));
    }
  });
});
