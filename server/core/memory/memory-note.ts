/** One note an agent saved with `memory_save`. */
export interface MemoryNote {
  noteId: string;
  title: string;
  text: string;
  /** ISO time it was saved. */
  savedAt: string;
}

/** A row of `tables.memoryNotes`: a note, or the scope's head, which every save and forget writes (conditionally) so writers of one scope take turns. */
export type MemoryRow = { kind: 'note'; title: string; text: string; savedAt: string } | { kind: 'head'; notes: number; characters: number };

/** The key of a scope's head row; note keys are `note_<uuid>`. */
export const headKey = 'head';

/** The characters a note counts against its scope's bound. */
export function noteCharacters(note: { title: string; text: string }): number {
  return note.title.length + note.text.length;
}
