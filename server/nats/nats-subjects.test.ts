import { describe, expect, it } from 'vitest';
import { chatSubject, conversationToken, parseRequestSubject, replayRequestSubject, turnReplaySubject } from './nats-subjects.js';

describe('NATS subjects', () => {
  it('parses chat and replay request subjects and nothing else', () => {
    expect(parseRequestSubject(chatSubject('acc_1', 'agent-1'))).toEqual({ accountId: 'acc_1', agentId: 'agent-1', kind: 'chat' });
    expect(parseRequestSubject(replayRequestSubject('acc_1', 'agent-1'))).toEqual({ accountId: 'acc_1', agentId: 'agent-1', kind: 'replay' });
    for (const subject of ['harness.v1.acc_1.agent.other', 'harness.v2.acc_1.agent.chat', 'harness.v1.acc_1.chat', 'harness.v1.acc_1.a.b.chat', 'harness.v1.acc 1.agent.chat']) {
      expect(parseRequestSubject(subject)).toBeUndefined();
    }
  });

  it('puts a conversation key into a subject only as one base64url token', () => {
    const key = 'a.b > c * d/é';
    expect(conversationToken(key)).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(conversationToken(key), 'base64url').toString('utf8')).toBe(key);
    expect(turnReplaySubject('acc_1', 'agent', key, 'turn_1').split('.')).toHaveLength(6);
    expect(() => turnReplaySubject('acc_1', 'agent', key, 'turn.>')).toThrow(/turnId/);
  });
});
