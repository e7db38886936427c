import { describe, expect, it } from 'vitest';
import { transcriptFromHistory } from './conversation-history.js';

describe('transcriptFromHistory', () => {
  it('shows stored model messages as transcript entries, with pending approvals', () => {
    const transcript = transcriptFromHistory({
      conversationKey: 'c1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'search: cats' },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'alphaSearch', input: { query: 'cats' } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'alphaSearch', output: { type: 'json', value: { results: [1, 2] } } }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Two cats.' }] },
        { role: 'user', content: [{ type: 'text', text: 'search: dogs' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 't2', toolName: 'alphaSearch', input: { query: 'dogs' } },
            { type: 'tool-approval-request', approvalId: 'ap2', toolCallId: 't2' },
          ],
        },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 't3', toolName: 'x', output: { type: 'execution-denied', reason: 'no' } }] },
      ],
      pendingApprovals: [{ approvalId: 'ap2', toolCallId: 't2', toolName: 'alphaSearch', input: { query: 'dogs' } }],
    });
    expect(transcript.entries).toEqual([
      { kind: 'user', text: 'search: cats' },
      { kind: 'tool-call', toolCallId: 't1', toolName: 'alphaSearch', input: { query: 'cats' }, state: 'output-available', output: { results: [1, 2] } },
      { kind: 'text', id: 'history-2', text: 'Two cats.', streaming: false },
      { kind: 'user', text: 'search: dogs' },
      { kind: 'tool-call', toolCallId: 't2', toolName: 'alphaSearch', input: { query: 'dogs' }, state: 'approval-requested', approval: { approvalId: 'ap2' } },
    ]);
    expect(transcript.status).toBe('awaiting_approval');
    expect(transcript.approvals).toEqual([{ approvalId: 'ap2', toolCallId: 't2', toolName: 'alphaSearch', input: { query: 'dogs' } }]);
  });

  it('is empty for a conversation that does not exist yet', () => {
    expect(transcriptFromHistory(undefined)).toMatchObject({ entries: [], status: 'idle' });
  });
});
