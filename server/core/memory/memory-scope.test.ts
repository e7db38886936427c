import { describe, expect, it } from 'vitest';
import { endUserOf, memoryPartition, type MemorySubject } from './memory-scope.js';

const subject = (conversationKey: string, extra: Partial<MemorySubject> = {}): MemorySubject => ({ accountId: 'acc_1', agentId: 'helper', conversationKey, transport: 'json', ...extra });

describe('memory scopes', () => {
  it('the end user: the key up to its first ":", the whole key without one, the whole key of a channel, the given user first', () => {
    expect(endUserOf(subject('alice:support-1'))).toBe('alice');
    expect(endUserOf(subject('alice:a:b'))).toBe('alice');
    expect(endUserOf(subject('alice'))).toBe('alice');
    expect(endUserOf(subject('telegram:123', { transport: 'channel' }))).toBe('telegram:123');
    expect(endUserOf(subject('alice:x/subagent/helper', { user: 'bob' }))).toBe('bob');
  });

  it('conversation, user and agent scopes are partitions of their own, within the account and agent', () => {
    const one = subject('alice:support-1');
    const same = subject('alice:support-2');
    const other = subject('bob:support-1');
    expect(memoryPartition('user', one)).toBe(memoryPartition('user', same));
    expect(memoryPartition('user', one)).not.toBe(memoryPartition('user', other));
    expect(memoryPartition('conversation', one)).not.toBe(memoryPartition('conversation', same));
    expect(memoryPartition('agent', one)).toBe(memoryPartition('agent', other));
    expect(memoryPartition('agent', one)).not.toBe(memoryPartition('agent', { ...one, agentId: 'another' }));
    expect(memoryPartition('user', one)).not.toBe(memoryPartition('user', { ...one, accountId: 'acc_2' }));
    // A key that looks like the scope's parts cannot reach another partition.
    expect(memoryPartition('conversation', subject('x","user'))).not.toBe(memoryPartition('user', subject('x')));
  });
});
