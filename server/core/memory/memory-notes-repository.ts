import { randomUUID } from 'node:crypto';
import { readAndWrite } from '../storage/read-and-write.js';
import type { TableStore, VersionedRow, WriteOperation } from '../storage/table-store.js';
import { headKey, type MemoryNote, type MemoryRow, noteCharacters } from './memory-note.js';
import type { MemorySettings } from './memory-settings.js';
import { MemoryToolError } from './memory-tool-error.js';

/** The bounds a save checks. */
export type NoteBounds = Pick<MemorySettings, 'maxNotesPerScope' | 'maxScopeCharacters'>;

function notesOf(rows: readonly VersionedRow<MemoryRow>[]): MemoryNote[] {
  return rows.flatMap((row) => (row.value.kind === 'note' ? [{ noteId: row.key, title: row.value.title, text: row.value.text, savedAt: row.value.savedAt }] : []));
}

/** The head after the change, written only if the head is still as read: writers of one scope take turns. */
function headWrite(rows: readonly VersionedRow<MemoryRow>[], notes: MemoryNote[]): WriteOperation<MemoryRow> {
  const head = rows.find((row) => row.key === headKey);
  const characters = notes.reduce((sum, note) => sum + noteCharacters(note), 0);
  return { type: 'put', key: headKey, value: { kind: 'head', notes: notes.length, characters }, expectedVersion: head ? head.version : null };
}

/**
 * The memory notes table (`tables.memoryNotes`), one partition per scope (`memoryPartition`).
 * A save and a forget are each one conditional batch on the scope: the note and the scope's
 * head, which holds its count and size, so two saves racing for the last free place cannot
 * both pass.
 */
export class MemoryNotesRepository {
  constructor(
    private readonly table: TableStore<MemoryRow>,
    private readonly now: () => Date,
  ) {}

  /** The scope's notes, in the order stored. */
  async list(partition: string): Promise<MemoryNote[]> {
    return notesOf(await this.table.list(partition));
  }

  /** Saves a note; throws `MemoryToolError` (`full`, nothing written) when the scope's count or size would pass its bound. */
  save(partition: string, note: { title: string; text: string }, bounds: NoteBounds): Promise<MemoryNote> {
    const saved: MemoryNote = { noteId: `note_${randomUUID()}`, title: note.title, text: note.text, savedAt: this.now().toISOString() };
    return readAndWrite(this.table, partition, undefined, (rows) => {
      const notes = notesOf(rows);
      if (notes.length >= bounds.maxNotesPerScope) {
        throw new MemoryToolError('full', `Memory is full: this scope holds ${notes.length} notes, the most it may hold (${bounds.maxNotesPerScope}). Forget a note with memory_forget before saving another.`);
      }
      const used = notes.reduce((sum, stored) => sum + noteCharacters(stored), 0);
      if (used + noteCharacters(note) > bounds.maxScopeCharacters) {
        throw new MemoryToolError('full', `Memory is full: this note (${noteCharacters(note)} characters) would take this scope past its ${bounds.maxScopeCharacters} characters (${used} used). Forget a note with memory_forget, or save a shorter one.`);
      }
      const row: MemoryRow = { kind: 'note', title: saved.title, text: saved.text, savedAt: saved.savedAt };
      return { operations: [{ type: 'put', key: saved.noteId, value: row, expectedVersion: null }, headWrite(rows, [...notes, saved])], result: saved };
    });
  }

  /** Removes a note; throws `MemoryToolError` (`not-found`) when the scope has no note of that id. */
  forget(partition: string, noteId: string): Promise<MemoryNote> {
    return readAndWrite(this.table, partition, undefined, (rows) => {
      const notes = notesOf(rows);
      const note = notes.find((stored) => stored.noteId === noteId);
      if (!note) throw new MemoryToolError('not-found', `There is no note "${noteId}" in this memory; memory_search lists the notes and their ids.`);
      const row = rows.find((stored) => stored.key === noteId)!;
      const rest = notes.filter((stored) => stored !== note);
      return { operations: [{ type: 'delete', key: noteId, expectedVersion: row.version }, headWrite(rows, rest)], result: note };
    });
  }
}
