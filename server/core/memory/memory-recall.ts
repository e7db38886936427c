import type { ModelMessage } from 'ai';
import type { MemoryNote } from './memory-note.js';
import { estimatedTokens, rankNotes } from './memory-relevance.js';

const preambleHeading =
  'Memory: notes saved with memory_save in earlier turns, most relevant first. They are what was known when saved and may be out of date; memory_search finds others, memory_forget removes one that is wrong.';

/** The text of the latest user message (its text parts), what the notes are matched against. */
export function latestUserText(messages: readonly { message: ModelMessage; compaction?: unknown }[]): string {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const { message, compaction } = messages[index]!;
    // A summary marker is stored as a user message; it is not what the user said last.
    if (message.role !== 'user' || compaction !== undefined) continue;
    if (typeof message.content === 'string') return message.content;
    return message.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
  }
  return '';
}

/** One note as the model reads it. */
export function noteLine(note: MemoryNote): string {
  return `- [${note.noteId}] ${note.title} (saved ${note.savedAt}): ${note.text}`;
}

/**
 * The notes given to the model with a turn: the most relevant to the latest user message
 * (matching words, then recency) that fit in `budgetTokens` together with the heading, as system
 * text. A note too large for what is left is passed over for smaller ones after it. Undefined
 * when no note fits.
 */
export function memoryPreamble(notes: readonly MemoryNote[], latestUserMessage: string, budgetTokens: number): string | undefined {
  let left = budgetTokens - estimatedTokens(preambleHeading);
  const lines: string[] = [];
  for (const { note } of rankNotes(notes, latestUserMessage)) {
    if (left <= 0) break;
    const line = noteLine(note);
    const cost = estimatedTokens(line) + 1;
    if (cost > left) continue;
    lines.push(line);
    left -= cost;
  }
  return lines.length === 0 ? undefined : `${preambleHeading}\n${lines.join('\n')}`;
}
