import { describe, expect, it } from 'vitest';
import type { MemoryNote } from './memory-note.js';
import { rankNotes, wordsOf } from './memory-relevance.js';

const note = (noteId: string, title: string, text: string, savedAt: string): MemoryNote => ({ noteId, title, text, savedAt });

describe('memory relevance', () => {
  it('words: lowercased letters and digits of any script, three characters or more, each once', () => {
    expect([...wordsOf('The Café, the CAFÉ; 2024 is ok! Ünïcödé')]).toEqual(['the', 'café', '2024', 'ünïcödé']);
  });

  it('matching notes come first, by how many distinct query words they hold; recency orders equals and the rest', () => {
    const notes = [
      note('old-match', 'Shipping', 'alice prefers express shipping to Berlin', '2030-01-01T00:00:00.000Z'),
      note('new-other', 'Billing', 'invoices go to finance', '2030-01-03T00:00:00.000Z'),
      note('two-matches', 'Berlin office', 'the Berlin office handles shipping', '2030-01-02T00:00:00.000Z'),
      note('newest-match', 'Shipping again', 'shipping is slow in winter', '2030-01-04T00:00:00.000Z'),
    ];
    const ranked = rankNotes(notes, 'How is shipping to Berlin going?');
    expect(ranked.map((entry) => entry.note.noteId)).toEqual(['two-matches', 'old-match', 'newest-match', 'new-other']);
    expect(ranked.map((entry) => entry.matches)).toEqual([2, 2, 1, 0]);
  });

  it('without a matching word the newest notes come first', () => {
    const notes = [note('a', 'one', 'x', '2030-01-01T00:00:00.000Z'), note('c', 'three', 'x', '2030-01-03T00:00:00.000Z'), note('b', 'two', 'x', '2030-01-02T00:00:00.000Z')];
    expect(rankNotes(notes, '').map((entry) => entry.note.noteId)).toEqual(['c', 'b', 'a']);
  });
});
