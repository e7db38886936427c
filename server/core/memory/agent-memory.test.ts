import type { ToolSet } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryFolderPerTest } from '../../../test/support/temporary-folder.js';
import { openTestStorage } from '../../../test/support/test-storage.js';
import type { Storage } from '../storage/table-store.js';
import { AgentMemory } from './agent-memory.js';
import type { MemoryRow } from './memory-note.js';
import { MemoryNotesRepository } from './memory-notes-repository.js';
import type { MemorySubject } from './memory-scope.js';
import { defaultMemorySettings, type MemorySettings } from './memory-settings.js';

const subject = (conversationKey: string): MemorySubject => ({ accountId: 'acc_1', agentId: 'helper', conversationKey, transport: 'json' });
const userMessage = (content: string) => [{ message: { role: 'user' as const, content } }];

/** Calls a tool the way the model would, with its input. */
const call = (tools: ToolSet, name: string, input: unknown): Promise<unknown> => tools[name]!.execute!(input as never, { toolCallId: 'call_1', messages: [], context: undefined }) as Promise<unknown>;

describe('AgentMemory', () => {
  const folder = temporaryFolderPerTest();
  const opened: Storage[] = [];
  afterEach(async () => {
    for (const storage of opened.splice(0)) await storage.close();
  });
  const memory = async (settings: Partial<MemorySettings> = {}) => {
    const storage = await openTestStorage(folder.path);
    opened.push(storage);
    return new AgentMemory(new MemoryNotesRepository(storage.table<MemoryRow>('memory'), () => new Date('2030-01-01T00:00:00.000Z')), { ...defaultMemorySettings, ...settings });
  };
  const userScope = { memory: { enabled: true, scope: 'user' } };

  it('offers no tools and recalls nothing without config.memory, or with enabled false', async () => {
    const agentMemory = await memory();
    expect(agentMemory.tools({}, subject('alice:1'))).toEqual({});
    expect(agentMemory.tools({ memory: { enabled: false } }, subject('alice:1'))).toEqual({});
    expect(await agentMemory.recall({ memory: { enabled: false } }, subject('alice:1'), userMessage('hi'))).toBeUndefined();
    expect(Object.keys(agentMemory.tools(userScope, subject('alice:1'))).sort()).toEqual(['memory_forget', 'memory_save', 'memory_search']);
  });

  it('refuses an empty note, a long title and a long text, saving nothing', async () => {
    const agentMemory = await memory({ maxNoteCharacters: 10 });
    const tools = agentMemory.tools(userScope, subject('alice:1'));
    await expect(call(tools, 'memory_save', { title: ' ', text: 'x' })).rejects.toThrow('A note needs a title and a text, neither empty.');
    await expect(call(tools, 'memory_save', { title: 't'.repeat(201), text: 'x' })).rejects.toThrow('The title has 201 characters; the most is 200.');
    await expect(call(tools, 'memory_save', { title: 'ok', text: 'x'.repeat(11) })).rejects.toThrow('The note has 11 characters; the most is 10.');
    expect(await call(tools, 'memory_search', { query: '' })).toEqual({ notes: [] });
  });

  it("a user's notes: saved in one conversation, recalled and found in another of the user, never in another user's", async () => {
    const agentMemory = await memory();
    await call(agentMemory.tools(userScope, subject('alice:1')), 'memory_save', { title: 'Tea', text: 'likes green tea' });
    const recalled = await agentMemory.recall(userScope, subject('alice:2'), userMessage('tea please'));
    expect(recalled).toContain('Tea (saved 2030-01-01T00:00:00.000Z): likes green tea');
    expect(await agentMemory.recall(userScope, subject('bob:1'), userMessage('tea please'))).toBeUndefined();
    expect(await call(agentMemory.tools(userScope, subject('alice:3')), 'memory_search', { query: 'green' })).toMatchObject({ notes: [{ title: 'Tea' }] });
    expect(await call(agentMemory.tools(userScope, subject('alice:3')), 'memory_search', { query: 'coffee' })).toEqual({ notes: [] });
    expect(await call(agentMemory.tools(userScope, subject('bob:1')), 'memory_search', { query: '' })).toEqual({ notes: [] });
    // A budget of 0 gives no notes.
    expect(await (await memory({ recallTokens: 0 })).recall(userScope, subject('alice:2'), userMessage('tea'))).toBeUndefined();
  });
});
