import { type ModelMessage, type ToolSet, tool } from 'ai';
import { z } from 'zod';
import { enabledMemory } from './memory-config-schema.js';
import type { MemoryNote } from './memory-note.js';
import type { MemoryNotesRepository } from './memory-notes-repository.js';
import { latestUserText, memoryPreamble } from './memory-recall.js';
import { rankNotes, wordsOf } from './memory-relevance.js';
import { memoryPartition, type MemorySubject } from './memory-scope.js';
import type { MemorySettings } from './memory-settings.js';
import { MemoryToolError } from './memory-tool-error.js';

/** The most characters of a note's title. */
export const maxTitleCharacters = 200;
/** The most characters of a `memory_search` query. */
const maxQueryCharacters = 1000;

/** A note as the tools answer it. */
function viewOf(note: MemoryNote) {
  return { id: note.noteId, title: note.title, text: note.text, savedAt: note.savedAt };
}

/**
 * Agents' memory beyond one conversation (`config.memory`): the notes of the turn's scope
 * given to the model with each turn, and the tools that save, search and forget them. Built
 * once by the composition root; every call names the agent's config and the turn's subject.
 */
export class AgentMemory {
  constructor(
    private readonly repository: MemoryNotesRepository,
    private readonly settings: MemorySettings,
  ) {}

  /**
   * The system text of notes for a turn, after the agent's system prompt: undefined when the
   * agent has no memory, the scope no notes, or the budget is 0. Never stored in the conversation.
   */
  async recall(config: { memory?: unknown }, subject: MemorySubject, messages: readonly { message: ModelMessage }[]): Promise<string | undefined> {
    const memory = enabledMemory(config.memory);
    if (!memory || this.settings.recallTokens === 0) return undefined;
    const notes = await this.repository.list(memoryPartition(memory.scope, subject));
    return notes.length === 0 ? undefined : memoryPreamble(notes, latestUserText(messages), this.settings.recallTokens);
  }

  /** `memory_save`, `memory_search` and `memory_forget` on the turn's scope; none when the agent has no memory. */
  tools(config: { memory?: unknown }, subject: MemorySubject): ToolSet {
    const memory = enabledMemory(config.memory);
    if (!memory) return {};
    const partition = memoryPartition(memory.scope, subject);
    const { repository, settings } = this;
    const where = memory.scope === 'conversation' ? 'this conversation' : memory.scope === 'user' ? 'this user' : 'every conversation of this agent';
    return {
      memory_save: tool({
        description: `Save a note to long-term memory (kept for ${where}, given back in later turns when relevant): a fact, a preference, a decision or an open task worth remembering. One idea per note.`,
        inputSchema: z.object({
          title: z.string().describe(`A short title (at most ${maxTitleCharacters} characters).`),
          text: z.string().describe(`The note (at most ${settings.maxNoteCharacters} characters).`),
        }),
        execute: async ({ title, text }) => {
          const trimmedTitle = title.trim();
          if (trimmedTitle === '' || text.trim() === '') throw new MemoryToolError('invalid-input', 'A note needs a title and a text, neither empty.');
          if (trimmedTitle.length > maxTitleCharacters) throw new MemoryToolError('invalid-input', `The title has ${trimmedTitle.length} characters; the most is ${maxTitleCharacters}.`);
          if (text.length > settings.maxNoteCharacters) throw new MemoryToolError('invalid-input', `The note has ${text.length} characters; the most is ${settings.maxNoteCharacters}. Save a shorter note, or several.`);
          const saved = await repository.save(partition, { title: trimmedTitle, text }, settings);
          return { saved: viewOf(saved) };
        },
      }),
      memory_search: tool({
        description: `Search long-term memory (${where}) for notes about something; answers the best matches, newest first among equals, with their ids.`,
        inputSchema: z.object({ query: z.string().describe('Words to look for.') }),
        execute: async ({ query }) => {
          const bounded = query.slice(0, maxQueryCharacters);
          const ranked = rankNotes(await repository.list(partition), bounded);
          // A query of no words lists the newest notes; otherwise only notes that match.
          const matching = wordsOf(bounded).size === 0 ? ranked : ranked.filter((entry) => entry.matches > 0);
          return { notes: matching.slice(0, settings.maxSearchResults).map((entry) => viewOf(entry.note)) };
        },
      }),
      memory_forget: tool({
        description: 'Remove a note from long-term memory by its id (from memory_search or the memory notes you were given), when it is wrong or no longer true.',
        inputSchema: z.object({ id: z.string().describe('The note id, e.g. note_...') }),
        execute: async ({ id }) => ({ forgotten: viewOf(await repository.forget(partition, id)) }),
      }),
    };
  }
}
