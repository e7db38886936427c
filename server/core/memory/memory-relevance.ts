import type { MemoryNote } from './memory-note.js';

/** Characters of the query read for words: a message can be long, its first part says what it is about. */
const maxQueryCharacters = 4000;
/** Words shorter than this say little about a topic (`a`, `is`, `to`). */
const minimumWordLength = 3;
/** What a note gains for being the newest (falling to 0 for the oldest): less than one matching word. */
const recencyWeight = 0.5;

// Letters and digits of any script; a single character class, so matching is linear in the text.
const wordPattern = /[\p{L}\p{N}]+/gu;

/** The distinct lowercased words of `text` worth matching on. */
export function wordsOf(text: string): Set<string> {
  const words = new Set<string>();
  for (const match of text.toLowerCase().matchAll(wordPattern)) if (match[0].length >= minimumWordLength) words.add(match[0]);
  return words;
}

/** How many of the query's words a note holds (title or text). */
function overlap(query: Set<string>, note: MemoryNote): number {
  if (query.size === 0) return 0;
  let count = 0;
  for (const word of wordsOf(`${note.title} ${note.text}`)) if (query.has(word)) count += 1;
  return count;
}

/** A note with its relevance to a query. */
export interface RankedNote {
  note: MemoryNote;
  /** Distinct query words the note holds. */
  matches: number;
}

/**
 * The notes, most relevant first: by matching words (each distinct query word the note holds
 * counts one), plus a bonus for recency below one word's worth, so among notes matching alike
 * the newer comes first, and without any match the newest do. Linear in the notes' text (the
 * scope's bound) plus a sort of the notes.
 */
export function rankNotes(notes: readonly MemoryNote[], query: string): RankedNote[] {
  const words = wordsOf(query.slice(0, maxQueryCharacters));
  const byAge = [...notes].sort((first, second) => first.savedAt.localeCompare(second.savedAt));
  const newest = Math.max(byAge.length - 1, 1);
  const scored = byAge.map((note, index) => {
    const matches = overlap(words, note);
    return { note, matches, score: matches + (recencyWeight * index) / newest };
  });
  scored.sort((first, second) => second.score - first.score);
  return scored.map(({ note, matches }) => ({ note, matches }));
}

/** A rough token count (4 characters a token), as the fixture model and the usage estimates use. */
export function estimatedTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
