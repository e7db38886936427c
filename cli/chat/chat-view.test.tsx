import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { addUserMessage, applyChunk, emptyTranscript, foldStream, startStream, type ChatTranscript } from './chat-transcript.js';
import { ApprovalPrompt, ChatView, EntryView, type ChatViewProps } from './chat-view.js';

const base: ChatViewProps = { agentId: 'helper', conversationKey: 'c1', transcript: emptyTranscript, historyLength: 0, busy: false, input: '' };

describe('ChatView', () => {
  it('shows text as it streams, with the input line busy', () => {
    let transcript: ChatTranscript = startStream(addUserMessage(emptyTranscript, 'hello'));
    transcript = applyChunk(transcript, { type: 'text-start', id: '0' });
    transcript = applyChunk(transcript, { type: 'text-delta', id: '0', delta: 'Echo: hel' });
    const { lastFrame, rerender } = render(<ChatView {...base} transcript={transcript} busy />);
    expect(lastFrame()).toContain('you › hello');
    expect(lastFrame()).toContain('Echo: hel');
    expect(lastFrame()).toContain('(streaming…)');
    rerender(<ChatView {...base} transcript={applyChunk(transcript, { type: 'text-delta', id: '0', delta: 'lo' })} busy />);
    expect(lastFrame()).toContain('Echo: hello');
  });

  it('shows a tool call and its result on one line', () => {
    const transcript = foldStream(emptyTranscript, [
      { type: 'tool-input-available', toolCallId: 't1', toolName: 'alphaSearch', input: { query: 'cats' } },
      { type: 'tool-output-available', toolCallId: 't1', output: { results: [1, 2, 3] } },
    ]);
    const { lastFrame } = render(<ChatView {...base} transcript={transcript} />);
    expect(lastFrame()).toContain('⚙ alphaSearch {"query":"cats"} → 3 results');
  });

  it('shows the approval prompt in place of the input line', () => {
    const request = { approvalId: 'ap1', toolCallId: 't1', toolName: 'alphaSearch', input: { query: 'dogs' } };
    const { lastFrame } = render(<ChatView {...base} input="typed" prompt={{ request, position: 1, total: 2, mode: 'decide', reason: '' }} />);
    expect(lastFrame()).toContain('Approval 1 of 2: Run alphaSearch {"query":"dogs"}?');
    expect(lastFrame()).toContain('y approve · n deny');
    expect(lastFrame()).not.toContain('typed');
  });

  it('shows prior history compact, above a separator', () => {
    const history = foldStream(addUserMessage(emptyTranscript, 'earlier question'), [
      { type: 'text-start', id: '0' },
      { type: 'text-delta', id: '0', delta: `long answer ${'word '.repeat(60)}\nsecond line` },
    ]);
    const { lastFrame } = render(<ChatView {...base} transcript={addUserMessage(history, 'new question')} historyLength={2} />);
    const frame = lastFrame() ?? '';
    expect(frame).toContain('── history (2 entries) ──');
    expect(frame).toContain('you › earlier question');
    expect(frame).toMatch(/^long answer (word ){10,}.*…$/m);
    expect(frame).not.toContain('second line');
    expect(frame.indexOf('earlier question')).toBeLessThan(frame.indexOf('new question'));
  });
});

describe('chat entries', () => {
  it('shows errors and settled async tools', () => {
    expect(render(<EntryView entry={{ kind: 'error', errorText: 'the model failed' }} />).lastFrame()).toBe('✗ the model failed');
    expect(render(<EntryView entry={{ kind: 'async-settled', toolName: 'test_async', status: 'completed', response: { ok: true } }} />).lastFrame()).toBe(
      '⏱ test_async completed → {"ok":true}',
    );
  });

  it('asks for a reason after n, and says Esc goes back', () => {
    const request = { approvalId: 'ap1', toolCallId: 't1', toolName: 'x', input: {} };
    expect(render(<ApprovalPrompt request={request} position={1} total={1} mode="reason" reason="too costly" />).lastFrame()).toContain(
      'Reason for denying (Enter sends, empty for none; Esc goes back): too costly',
    );
  });
});
