import type { UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { scriptedChatSource } from '../test-support/scripted-chat-source.js';
import type { ChatStreamSource } from './chat-stream-source.js';
import { ChatSession, denyAllReason } from './chat-session.js';
import { transcriptFromHistory } from './conversation-history.js';

const done: UIMessageChunk[] = [{ type: 'finish', messageMetadata: { status: 'completed' } }];

describe('ChatSession', () => {
  it('answers approvals left pending in the history under --deny-all', async () => {
    const source = scriptedChatSource([done]);
    const transcript = transcriptFromHistory({
      conversationKey: 'c1',
      messages: [],
      pendingApprovals: [{ approvalId: 'ap1', toolCallId: 't1', toolName: 'x', input: {} }],
    });
    const session = new ChatSession({ source, conversationKey: 'c1', transcript, approvalPolicy: 'deny-all' });
    const notified: string[] = [];
    session.subscribe(() => notified.push(session.getSnapshot().transcript.status));
    await session.answerPendingApprovals();
    expect(source.requests).toEqual([{ conversationKey: 'c1', message: { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'ap1', approved: false, reason: denyAllReason }] } }]);
    expect(session.transcript.status).toBe('completed');
    expect(notified).toContain('streaming');
  });

  it('leaves pending approvals alone without a policy', async () => {
    const source = scriptedChatSource([]);
    const transcript = transcriptFromHistory({ conversationKey: 'c1', messages: [], pendingApprovals: [{ approvalId: 'ap1', toolCallId: 't1', toolName: 'x', input: {} }] });
    const session = new ChatSession({ source, conversationKey: 'c1', transcript });
    await session.answerPendingApprovals();
    expect(source.requests).toEqual([]);
    expect(session.transcript.status).toBe('awaiting_approval');
  });
});

describe('ChatSession.close', () => {
  it('aborts the open stream, which ends as failed', async () => {
    let signal: AbortSignal | undefined;
    const source: ChatStreamSource = {
      open: async (_request, given) => {
        signal = given;
        return (async function* () {
          yield { type: 'text-start', id: '0' } as UIMessageChunk;
          await new Promise((_resolve, reject) => given?.addEventListener('abort', () => reject(given.reason)));
        })();
      },
    };
    const session = new ChatSession({ source, conversationKey: 'c1' });
    const sending = session.sendText('hi');
    await new Promise((resolve) => setImmediate(resolve));
    session.close();
    await expect(sending).rejects.toThrow();
    expect(signal?.aborted).toBe(true);
    expect(session.transcript.status).toBe('failed');
    await expect(session.sendText('again')).rejects.toThrow();
  });
});
