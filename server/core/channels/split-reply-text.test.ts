import { describe, expect, it } from 'vitest';
import { splitReplyText } from './split-reply-text.js';

describe('splitReplyText', () => {
  it('keeps short text whole and gives nothing for empty text', () => {
    expect(splitReplyText('hello', 10)).toEqual(['hello']);
    expect(splitReplyText('', 10)).toEqual([]);
  });

  it('prefers to split after a newline', () => {
    expect(splitReplyText('first line\nsecond line', 15)).toEqual(['first line\n', 'second line']);
  });

  it('falls back to a space', () => {
    expect(splitReplyText('alpha beta gamma delta', 12)).toEqual(['alpha beta ', 'gamma delta']);
  });

  it('cuts at the limit when there is no break point', () => {
    expect(splitReplyText('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
  });

  it('never separates the two halves of a surrogate pair', () => {
    const pieces = splitReplyText('abc😀def', 4);
    expect(pieces).toEqual(['abc', '😀de', 'f']);
  });

  it('rejoins to the original text, every piece within the limit', () => {
    const words = ['lorem', 'ipsum\n', 'dolor', 'sit', 'amet,', '😀😀', 'consectetur\n\n', 'adipiscing', 'x'.repeat(40)];
    const text = Array.from({ length: 500 }, (_, index) => words[index % words.length]).join(' ');
    for (const limit of [7, 32, 100, 999]) {
      const pieces = splitReplyText(text, limit);
      expect(pieces.join('')).toBe(text);
      for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(limit);
    }
  });

  it('refuses a limit that cannot make progress', () => {
    expect(() => splitReplyText('abc', 1)).toThrow(RangeError);
  });
});
