import { describe, expect, it } from 'vitest';
import type { MemoryNote } from './memory-note.js';
import { latestUserText, memoryPreamble, noteLine } from './memory-recall.js';
import { estimatedTokens } from './memory-relevance.js';

const note = (noteId: string, title: string, text: string, day: number): MemoryNote => ({ noteId, title, text, savedAt: `2030-01-0${day}T00:00:00.000Z` });

describe('memory recall', () => {
  it('reads the latest user message, text parts only', () => {
    const messages = [
      { message: { role: 'user' as const, content: 'first' } },
      { message: { role: 'user' as const, content: [{ type: 'text' as const, text: 'second' }, { type: 'image' as const, image: 'data:,' }, { type: 'text' as const, text: 'part' }] } },
      { message: { role: 'assistant' as const, content: 'answer' } },
    ];
    expect(latestUserText(messages)).toBe('second  part');
    expect(latestUserText([])).toBe('');
  });

  it('passes over a summary marker (stored as a user message) to what the user said last', () => {
    const marker = { message: { role: 'user' as const, content: '[summary] the user likes tea' }, compaction: { summarizedThrough: 1, trigger: 'manual' as const, tokensBefore: 10, tokensAfter: 5 } };
    expect(latestUserText([{ message: { role: 'user' as const, content: 'where is my dog' } }, { message: { role: 'assistant' as const, content: 'home' } }, marker])).toBe('where is my dog');
  });

  it('gives the most relevant notes that fit the token budget, and none past it', () => {
    const notes = [note('note_tea', 'Drinks', 'alice likes green tea', 1), note('note_big', 'Essay', 'word '.repeat(400), 3), note('note_dog', 'Pets', 'alice has a dog', 2)];
    const preamble = memoryPreamble(notes, 'what tea should I buy?', 200)!;
    expect(preamble).toContain(noteLine(notes[0]!));
    // The large note does not fit what is left; the smaller, older one after it does.
    expect(preamble).not.toContain('note_big');
    expect(preamble).toContain('note_dog');
    expect(preamble.indexOf('note_tea')).toBeLessThan(preamble.indexOf('note_dog'));
    expect(estimatedTokens(preamble)).toBeLessThanOrEqual(200);
  });

  it('gives nothing when no note fits', () => {
    expect(memoryPreamble([note('note_a', 'A', 'text', 1)], 'a', 10)).toBeUndefined();
    expect(memoryPreamble([], 'a', 1000)).toBeUndefined();
  });
});
