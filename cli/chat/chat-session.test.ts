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

describe('ChatSession.cancel', () => {
  /** A stream that sends some text, then waits until `release` to send its finish with `status`. */
  function heldSource(): { source: ChatStreamSource; release: (status: string) => void } {
    let release!: (status: string) => void;
    const finished = new Promise<string>((resolve) => (release = resolve));
    const source: ChatStreamSource = {
      open: async () =>
        (async function* () {
          yield { type: 'text-start', id: 't' } as UIMessageChunk;
          yield { type: 'text-delta', id: 't', delta: 'Half a' } as UIMessageChunk;
          const status = await finished;
          yield { type: 'text-end', id: 't' } as UIMessageChunk;
          yield { type: 'finish', messageMetadata: { status } } as UIMessageChunk;
        })(),
    };
    return { source, release };
  }

  it('asks the service to cancel the running turn; the stream runs to its cancelled finish and the text stays', async () => {
    const { source, release } = heldSource();
    let cancels = 0;
    const session = new ChatSession({ source, conversationKey: 'c1', cancelRun: async () => void (cancels += 1) });
    const sent = session.sendText('write a lot');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(session.getSnapshot().busy).toBe(true);
    await session.cancel();
    expect(cancels).toBe(1);
    release('cancelled');
    await sent;
    expect(session.transcript.status).toBe('cancelled');
    expect(session.transcript.entries.some((entry) => entry.kind === 'text' && entry.text === 'Half a')).toBe(true);
  });

  it('does nothing with no turn running, and shows a refused cancel without leaving the session', async () => {
    let cancels = 0;
    const idle = new ChatSession({ source: scriptedChatSource([]), conversationKey: 'c1', cancelRun: async () => void (cancels += 1) });
    await idle.cancel();
    expect(cancels).toBe(0);

    const { source, release } = heldSource();
    const session = new ChatSession({ source, conversationKey: 'c2', cancelRun: () => Promise.reject(new Error('Nothing is running on conversation "c2"')) });
    const sent = session.sendText('hi');
    await new Promise((resolve) => setTimeout(resolve, 0));
    await session.cancel();
    release('completed');
    await sent;
    expect(session.transcript.status).toBe('completed');
    expect(session.transcript.entries.some((entry) => entry.kind === 'error' && entry.errorText.includes('could not cancel'))).toBe(true);
  });
});
