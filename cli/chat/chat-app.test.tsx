import type { UIMessageChunk } from 'ai';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { scriptedChatSource } from '../test-support/scripted-chat-source.js';
import type { ChatStreamSource } from './chat-stream-source.js';
import { ChatApp } from './chat-app.js';
import { ChatSession } from './chat-session.js';
import { emptyTranscript } from './chat-transcript.js';

const reply = (text: string): UIMessageChunk[] => [
  { type: 'start' },
  { type: 'text-start', id: '0' },
  { type: 'text-delta', id: '0', delta: text },
  { type: 'text-end', id: '0' },
  { type: 'finish', messageMetadata: { status: 'completed' } },
];

const approvalRequest: UIMessageChunk[] = [
  { type: 'tool-input-available', toolCallId: 't1', toolName: 'alphaSearch', input: { query: 'dogs' } },
  { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 't1' },
  { type: 'tool-input-available', toolCallId: 't2', toolName: 'alphaSearch', input: { query: 'cats' } },
  { type: 'tool-approval-request', approvalId: 'ap2', toolCallId: 't2' },
  { type: 'finish', messageMetadata: { status: 'awaiting_approval' } },
];

/**
 * Waits until the frame satisfies the check (the session streams asynchronously). Ink 7+
 * holds a lone Esc for a few milliseconds (the start of an escape sequence split across
 * reads, in a real terminal), so after the quick turns of the event loop it waits on timers
 * too, up to a generous bound.
 */
async function frameWhere(lastFrame: () => string | undefined, check: (frame: string) => boolean): Promise<string> {
  const deadline = Date.now() + 5_000;
  for (let attempt = 0; attempt < 200 || Date.now() < deadline; attempt += 1) {
    const frame = lastFrame() ?? '';
    if (check(frame)) return frame;
    await new Promise((resolve) => (attempt < 200 ? setImmediate(resolve) : setTimeout(resolve, 5)));
  }
  throw new Error(`frame never matched:\n${lastFrame()}`);
}

/** Types text the way a terminal sends it: one keypress per write. */
async function type(stdin: { write(data: string): void }, text: string): Promise<void> {
  for (const character of text) {
    stdin.write(character);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('ChatApp', () => {
  it('sends typed text and shows the streamed reply', async () => {
    const source = scriptedChatSource([reply('Echo: hello')]);
    const session = new ChatSession({ source, conversationKey: 'c1', transcript: emptyTranscript });
    const { lastFrame, stdin } = render(<ChatApp session={session} agentId="helper" historyLength={0} />);
    await type(stdin, 'hello');
    await frameWhere(lastFrame, (frame) => frame.includes('› hello'));
    stdin.write('\r');
    const frame = await frameWhere(lastFrame, (frame) => frame.includes('Echo: hello'));
    expect(frame).toContain('you › hello');
    expect(source.requests).toEqual([{ conversationKey: 'c1', message: 'hello' }]);
  });

  it('asks about each approval, takes a reason for a denial, and sends one tool message', async () => {
    const source = scriptedChatSource([approvalRequest, reply('Done.')]);
    const session = new ChatSession({ source, conversationKey: 'c1' });
    const { lastFrame, stdin } = render(<ChatApp session={session} agentId="helper" historyLength={0} />);
    await type(stdin, 'search twice');
    stdin.write('\r');
    await frameWhere(lastFrame, (frame) => frame.includes('Approval 1 of 2: Run alphaSearch {"query":"dogs"}?'));
    await type(stdin, 'y');
    await frameWhere(lastFrame, (frame) => frame.includes('Approval 2 of 2: Run alphaSearch {"query":"cats"}?'));
    await type(stdin, 'n');
    await frameWhere(lastFrame, (frame) => frame.includes('Reason for denying'));
    await type(stdin, 'no cats');
    stdin.write('\r');
    await frameWhere(lastFrame, (frame) => frame.includes('Done.'));
    expect(source.requests[1]).toEqual({
      conversationKey: 'c1',
      message: {
        role: 'tool',
        content: [
          { type: 'tool-approval-response', approvalId: 'ap1', approved: true },
          { type: 'tool-approval-response', approvalId: 'ap2', approved: false, reason: 'no cats' },
        ],
      },
    });
  });

  it('answers by itself with --approve-all', async () => {
    const source = scriptedChatSource([approvalRequest, reply('Done.')]);
    const session = new ChatSession({ source, conversationKey: 'c1', approvalPolicy: 'approve-all' });
    const { lastFrame, stdin } = render(<ChatApp session={session} agentId="helper" historyLength={0} />);
    await type(stdin, 'go');
    stdin.write('\r');
    const frame = await frameWhere(lastFrame, (frame) => frame.includes('Done.'));
    expect(frame).not.toContain('Approval 1');
    expect(source.requests[1]?.message).toMatchObject({ content: [{ approvalId: 'ap1', approved: true }, { approvalId: 'ap2', approved: true }] });
  });

  it('shows a failed request in the transcript and keeps going', async () => {
    const source: ChatStreamSource = {
      open: async () => {
        throw new Error('cannot reach the agent service');
      },
    };
    const session = new ChatSession({ source, conversationKey: 'c1' });
    const { lastFrame, stdin } = render(<ChatApp session={session} agentId="helper" historyLength={0} />);
    await type(stdin, 'hi');
    stdin.write('\r');
    const frame = await frameWhere(lastFrame, (frame) => frame.includes('✗ harness: cannot reach the agent service'));
    expect(frame).toContain('› █');
  });

  it('Esc leaves the reason prompt and goes back to y/n', async () => {
    const source = scriptedChatSource([approvalRequest, reply('Done.')]);
    const session = new ChatSession({ source, conversationKey: 'c1' });
    const { lastFrame, stdin } = render(<ChatApp session={session} agentId="helper" historyLength={0} />);
    await type(stdin, 'search twice');
    stdin.write('\r');
    await frameWhere(lastFrame, (frame) => frame.includes('Approval 1 of 2'));
    await type(stdin, 'n');
    const reasonFrame = await frameWhere(lastFrame, (frame) => frame.includes('Reason for denying'));
    expect(reasonFrame).toContain('Esc goes back');
    await type(stdin, 'oops');
    stdin.write('\u001b');
    await frameWhere(lastFrame, (frame) => frame.includes('y approve · n deny') && frame.includes('Approval 1 of 2'));
    await type(stdin, 'y');
    await frameWhere(lastFrame, (frame) => frame.includes('Approval 2 of 2'));
    await type(stdin, 'y');
    await frameWhere(lastFrame, (frame) => frame.includes('Done.'));
    expect(source.requests[1]?.message).toMatchObject({ content: [{ approvalId: 'ap1', approved: true }, { approvalId: 'ap2', approved: true }] });
  });

  it('sends pasted text whose Enter arrives in the same write', async () => {
    const source = scriptedChatSource([reply('Echo: pasted line')]);
    const session = new ChatSession({ source, conversationKey: 'c1' });
    const { lastFrame, stdin } = render(<ChatApp session={session} agentId="helper" historyLength={0} />);
    await frameWhere(lastFrame, (frame) => frame.includes('› █'));
    stdin.write('pasted line\r');
    await frameWhere(lastFrame, (frame) => frame.includes('Echo: pasted line'));
    expect(source.requests).toEqual([{ conversationKey: 'c1', message: 'pasted line' }]);
  });
});
