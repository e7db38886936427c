import { describe, expect, it } from 'vitest';
import { agentIdPlaceholder, isFinalChunk, natsAuthenticationOf, subjectForAgent } from './nats-protocol.js';

describe('NATS chat protocol', () => {
  it('treats every finish but waiting_async_tools as the end of a stream', () => {
    expect(isFinalChunk({ type: 'finish', messageMetadata: { status: 'completed' } })).toBe(true);
    expect(isFinalChunk({ type: 'finish', messageMetadata: { status: 'awaiting_approval' } })).toBe(true);
    expect(isFinalChunk({ type: 'finish' })).toBe(true);
    expect(isFinalChunk({ type: 'finish', messageMetadata: { status: 'waiting_async_tools' } })).toBe(false);
    expect(isFinalChunk({ type: 'text-delta', id: '1', delta: 'x' })).toBe(false);
  });

  it('fills the agent into a subject template', () => {
    expect(subjectForAgent(`harness.v1.acc_1.${agentIdPlaceholder}.chat`, 'agent-1')).toBe('harness.v1.acc_1.agent-1.chat');
  });

  it('connects with what a credentials view gives: a signed JWT, a user, the operator\'s token, or nothing', () => {
    expect(natsAuthenticationOf({ user: 'account-a', password: 'SUSEED', jwt: 'eyJ' })).toEqual({ jwt: 'eyJ', seed: 'SUSEED' });
    expect(natsAuthenticationOf({ user: 'account-a', password: 'derived', jwt: null })).toEqual({ user: 'account-a', password: 'derived' });
    expect(natsAuthenticationOf({ user: null, password: null, jwt: null }, 'operator-token')).toEqual({ token: 'operator-token' });
    expect(natsAuthenticationOf({ user: null, password: null, jwt: null })).toEqual({});
  });
});
