import { afterEach, describe, expect, it } from 'vitest';
import { temporaryFolderPerTest } from '../../../test/support/temporary-folder.js';
import { openTestStorage } from '../../../test/support/test-storage.js';
import type { Storage } from '../storage/table-store.js';
import type { MemoryRow } from './memory-note.js';
import { MemoryNotesRepository } from './memory-notes-repository.js';
import { MemoryToolError } from './memory-tool-error.js';

// On lowdb files, or on PostgreSQL with HARNESS_TEST_STORAGE=postgres.
describe('MemoryNotesRepository', () => {
  const folder = temporaryFolderPerTest();
  const opened: Storage[] = [];
  afterEach(async () => {
    for (const storage of opened.splice(0)) await storage.close();
  });
  const repository = async () => {
    const storage = await openTestStorage(folder.path);
    opened.push(storage);
    return new MemoryNotesRepository(storage.table<MemoryRow>('memory'), () => new Date('2030-01-01T00:00:00.000Z'));
  };
  const roomy = { maxNotesPerScope: 100, maxScopeCharacters: 100_000 };

  it('saves, lists and forgets the notes of one scope, and no other', async () => {
    const notes = await repository();
    const saved = await notes.save('scope-a', { title: 'Tea', text: 'likes green tea' }, roomy);
    await notes.save('scope-b', { title: 'Dog', text: 'has a dog' }, roomy);
    expect(saved).toEqual({ noteId: expect.stringMatching(/^note_/), title: 'Tea', text: 'likes green tea', savedAt: '2030-01-01T00:00:00.000Z' });
    expect(await notes.list('scope-a')).toEqual([saved]);
    expect(await notes.forget('scope-a', saved.noteId)).toEqual(saved);
    expect(await notes.list('scope-a')).toEqual([]);
    expect((await notes.list('scope-b')).map((note) => note.title)).toEqual(['Dog']);
    // Another scope's note cannot be forgotten through this one.
    const other = (await notes.list('scope-b'))[0]!;
    await expect(notes.forget('scope-a', other.noteId)).rejects.toMatchObject({ kind: 'not-found' });
    expect(await notes.list('scope-b')).toHaveLength(1);
  });

  it('refuses a save past the count or the size bound, writing nothing', async () => {
    const notes = await repository();
    const bounds = { maxNotesPerScope: 2, maxScopeCharacters: 30 };
    await notes.save('scope', { title: 'one', text: 'first' }, bounds);
    await expect(notes.save('scope', { title: 'two', text: 'x'.repeat(30) }, bounds)).rejects.toThrow(/past its 30 characters \(8 used\)/);
    await notes.save('scope', { title: 'two', text: 'second' }, bounds);
    const refused = notes.save('scope', { title: 'three', text: 'third' }, bounds);
    await expect(refused).rejects.toBeInstanceOf(MemoryToolError);
    await expect(refused).rejects.toThrow(/holds 2 notes, the most it may hold \(2\)/);
    expect((await notes.list('scope')).map((note) => note.title).sort()).toEqual(['one', 'two']);
    // A note forgotten frees its place.
    await notes.forget('scope', (await notes.list('scope'))[0]!.noteId);
    await notes.save('scope', { title: 'three', text: 'third' }, bounds);
    expect(await notes.list('scope')).toHaveLength(2);
  });

  it('saves racing for the last places: exactly as many pass as the bound allows', async () => {
    // One storage (one process owns lowdb files); on PostgreSQL the saves race on the pool's connections.
    const first = await repository();
    const bounds = { maxNotesPerScope: 5, maxScopeCharacters: 100_000 };
    const outcomes = await Promise.allSettled(Array.from({ length: 12 }, (_, index) => first.save('scope', { title: `note ${index}`, text: 'text' }, bounds)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(5);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected').every((outcome) => (outcome as PromiseRejectedResult).reason instanceof MemoryToolError)).toBe(true);
    expect(await first.list('scope')).toHaveLength(5);
  });
});
