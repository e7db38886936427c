import { describe, expect, it } from 'vitest';
import { apologyText, approvalNotice, replyTextsFor } from './channel-reply-text.js';

describe('channel reply texts', () => {
  it('names each denied tool once, before the model text', () => {
    const texts = replyTextsFor({
      status: 'completed',
      text: 'I could not search.',
      deniedApprovals: [
        { toolName: 'alphaSearch', reason: 'r' },
        { toolName: 'alphaSearch', reason: 'r' },
        { toolName: 'alphaExtract', reason: 'r' },
      ],
    });
    expect(texts).toEqual(['The tools "alphaSearch", "alphaExtract" need an approval, which cannot be given from this chat, so they were not run.', 'I could not search.']);
  });

  it('apologises for a failed turn and posts nothing for an empty one', () => {
    expect(replyTextsFor({ status: 'failed', text: 'partial', deniedApprovals: [] })).toEqual([apologyText]);
    expect(replyTextsFor({ status: 'completed', text: '  ', deniedApprovals: [] })).toEqual([]);
    expect(approvalNotice(['bash'])).toBe('The tool "bash" needs an approval, which cannot be given from this chat, so it was not run.');
  });
});
