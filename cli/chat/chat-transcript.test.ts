import { readFileSync } from 'node:fs';
import type { UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  addUserMessage,
  applyChunk,
  emptyTranscript,
  endStream,
  failStream,
  foldStream,
  pendingApprovals,
  recordApprovalAnswers,
  startStream,
  summarizeTurn,
  type ToolCallEntry,
} from './chat-transcript.js';

/** Chunk sequences recorded by `fixtures/record-chat-fixtures.ts` (real client, fixture model). */
const fixture = (name: string): UIMessageChunk[] => JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8')) as UIMessageChunk[];

describe('chat transcript', () => {
  it('folds a plain reply into one text block, completed', () => {
    const transcript = foldStream(addUserMessage(emptyTranscript, 'hello there'), fixture('plain-reply'));
    expect(transcript.entries).toEqual([
      { kind: 'user', text: 'hello there' },
      { kind: 'text', id: '0', text: 'Echo: hello there', streaming: false },
    ]);
    expect(transcript.status).toBe('completed');
  });

  it('shows text while it streams', () => {
    let transcript = startStream(emptyTranscript);
    for (const chunk of fixture('plain-reply').slice(0, 5)) transcript = applyChunk(transcript, chunk);
    expect(transcript.status).toBe('streaming');
    expect(transcript.entries).toEqual([{ kind: 'text', id: '0', text: 'Echo: hello ', streaming: true }]);
  });

  it('folds a tool call with its input and output, then the text of the next step', () => {
    const transcript = foldStream(emptyTranscript, fixture('tool-call'));
    const call = transcript.entries[0] as ToolCallEntry;
    expect(call).toMatchObject({ kind: 'tool-call', toolName: 'alphaSearch', state: 'output-available', input: { query: 'cats' } });
    expect((call.output as { results: unknown[] }).results).toHaveLength(3);
    expect(transcript.entries[1]).toMatchObject({ kind: 'text', streaming: false });
    expect(summarizeTurn(transcript)).toMatchObject({ text: expect.stringMatching(/^alphaSearch: \{"query":"cats"/), toolCalls: [{ toolName: 'alphaSearch', state: 'output-available' }], approvals: [] });
    expect(transcript.status).toBe('completed');
  });

  it('records an approval request, the denial, and the denied output', () => {
    const asked = foldStream(addUserMessage(emptyTranscript, 'search: dogs'), fixture('approval-request'));
    expect(asked.status).toBe('awaiting_approval');
    const [request] = pendingApprovals(asked);
    expect(request).toMatchObject({ toolName: 'alphaSearch', input: { query: 'dogs' }, approvalId: expect.stringMatching(/^aitxt-/) });
    expect(asked.entries[1]).toMatchObject({ kind: 'tool-call', state: 'approval-requested', approval: { approvalId: request?.approvalId } });

    const answered = recordApprovalAnswers(asked, [{ approvalId: request?.approvalId ?? '', approved: false, reason: 'not now' }]);
    expect(pendingApprovals(answered)).toEqual([]);
    expect(answered.entries[1]).toMatchObject({ state: 'approval-answered', approval: { approved: false, reason: 'not now' } });

    const continued = foldStream(answered, fixture('approval-denied'));
    expect(continued.status).toBe('completed');
    expect(continued.entries[1]).toMatchObject({ state: 'output-denied', approval: { approved: false, reason: 'not now' } });
    expect(continued.entries[2]).toMatchObject({ kind: 'text', text: 'alphaSearch: not now' });
    expect(summarizeTurn(continued).approvals).toEqual([{ ...request, approved: false, reason: 'not now' }]);
  });

  it('fails the turn on an error chunk, keeping the error text', () => {
    const transcript = foldStream(emptyTranscript, fixture('model-error'));
    expect(transcript.status).toBe('failed');
    expect(transcript.entries).toEqual([{ kind: 'error', errorText: expect.stringContaining('Scripted failure with status 500') }]);
  });

  it('lets an error chunk win over a finish that claims success, and derives a status without metadata', () => {
    const chunks: UIMessageChunk[] = [{ type: 'error', errorText: 'boom' }, { type: 'finish', messageMetadata: { status: 'completed' } }];
    expect(foldStream(emptyTranscript, chunks).status).toBe('failed');
    expect(foldStream(emptyTranscript, [{ type: 'start' }, { type: 'finish' }]).status).toBe('completed');
    expect(foldStream(emptyTranscript, [{ type: 'finish', messageMetadata: { status: 'waiting_async_tools' } }]).status).toBe('waiting_async_tools');
  });

  it('adds a note for a settled async tool, and tool errors', () => {
    const transcript = foldStream(emptyTranscript, [
      { type: 'tool-input-available', toolCallId: 't1', toolName: 'test_async', input: {} },
      { type: 'tool-output-error', toolCallId: 't1', errorText: 'HTTP 503' },
      { type: 'data-async-tool-settled', data: { resultId: 'r1', toolCallId: 't2', toolName: 'test_async', status: 'completed', response: { ok: true } } },
    ]);
    expect(transcript.entries).toEqual([
      { kind: 'tool-call', toolCallId: 't1', toolName: 'test_async', input: {}, state: 'output-error', errorText: 'HTTP 503' },
      { kind: 'async-settled', resultId: 'r1', toolCallId: 't2', toolName: 'test_async', status: 'completed', response: { ok: true }, error: undefined },
    ]);
  });

  it('keeps text blocks of different streams apart even when their ids repeat', () => {
    const reply: UIMessageChunk[] = [{ type: 'text-start', id: '0' }, { type: 'text-delta', id: '0', delta: 'one' }, { type: 'text-end', id: '0' }];
    const twice = foldStream(foldStream(emptyTranscript, reply), reply);
    expect(twice.entries.map((entry) => (entry.kind === 'text' ? entry.text : ''))).toEqual(['one', 'one']);
    expect(summarizeTurn(twice, 1).text).toBe('one');
  });

  it('ends a broken stream as failed with the message', () => {
    const broken = failStream(applyChunk(startStream(emptyTranscript), { type: 'text-start', id: '0' }), 'harness: connection reset');
    expect(broken.status).toBe('failed');
    expect(broken.entries).toEqual([{ kind: 'text', id: '0', text: '', streaming: false }, { kind: 'error', errorText: 'harness: connection reset' }]);
    expect(endStream(startStream(emptyTranscript)).status).toBe('completed');
  });
});
