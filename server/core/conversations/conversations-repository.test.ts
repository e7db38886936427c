import { afterEach, describe, expect, it } from 'vitest';
import { temporaryFolderPerTest } from '../../../test/support/temporary-folder.js';
import { openTestStorage } from '../../../test/support/test-storage.js';
import { ConditionFailedError, type Storage, type TableStore, type WriteOperation } from '../storage/table-store.js';
import type { ConversationState, StoredMessage } from './conversation.js';
import { type ConversationRow, ConversationsRepository } from './conversations-repository.js';

function message(index: number): StoredMessage {
  return { message: { role: index % 2 === 0 ? 'user' : 'assistant', content: `message ${index}` }, turnId: `turn-${Math.floor(index / 2)}`, createdAt: '2030-01-01T00:00:00.000Z' };
}

/** The real table, with every batch it was asked to write kept for the test to read. */
function recording(table: TableStore<ConversationRow>): { table: TableStore<ConversationRow>; batches: WriteOperation<ConversationRow>[][]; reads: string[] } {
  const batches: WriteOperation<ConversationRow>[][] = [];
  const reads: string[] = [];
  return {
    batches,
    reads,
    table: {
      name: table.name,
      get: (partition, key) => {
        reads.push(`get ${key}`);
        return table.get(partition, key);
      },
      list: (partition) => {
        reads.push('list');
        return table.list(partition);
      },
      listPartitions: () => table.listPartitions(),
      write: (partition, operations) => {
        batches.push(operations);
        return table.write(partition, operations);
      },
    },
  };
}

/** Loads conversation `key`, adds `added` to it and saves it: one turn of `conversations`'s writer. */
async function appendTo(conversations: ConversationsRepository, ...added: StoredMessage[]): Promise<number> {
  const loaded = await conversations.load('acc', 'agent', 'key', 'now');
  loaded.state.messages.push(...added);
  return conversations.save(loaded.state, loaded.version);
}

describe('ConversationsRepository', () => {
  // The test run's storage: lowdb files, or PostgreSQL with HARNESS_TEST_STORAGE=postgres.
  const folder = temporaryFolderPerTest();
  const storages: Storage[] = [];
  const open = async () => {
    const storage = await openTestStorage(folder.path);
    storages.push(storage);
    return storage;
  };
  afterEach(async () => {
    for (const storage of storages.splice(0)) await storage.close();
  });

  it('writes only the messages a turn added, however long the conversation is', async () => {
    const storage = await open();
    const { table, batches } = recording(storage.table<ConversationRow>('conversations'));
    const conversations = new ConversationsRepository(table);
    const loaded = await conversations.load('acc', 'agent', 'key', '2030-01-01T00:00:00.000Z');
    const state = loaded.state;
    let version = loaded.version;
    for (let index = 0; index < 2000; index += 1) state.messages.push(message(index));
    version = await conversations.save(state, version);
    state.messages.push(message(2000), message(2001));
    version = await conversations.save(state, version);
    const last = batches.at(-1)!;
    expect(last).toHaveLength(3);
    expect(last.filter((operation) => operation.type === 'put' && 'message' in operation.value)).toHaveLength(2);
    const reloaded = await conversations.load('acc', 'agent', 'key', 'unused');
    expect(reloaded.version).toBe(version);
    expect(reloaded.state.messages.map((stored) => stored.message.content)).toEqual(Array.from({ length: 2002 }, (_, index) => `message ${index}`));
  });

  it('sees what another writer (another replica) added, though it keeps recent messages in memory', async () => {
    const storage = await open();
    const table = storage.table<ConversationRow>('conversations');
    const here = new ConversationsRepository(table);
    const there = new ConversationsRepository(table);
    await appendTo(here, message(0));
    await appendTo(there, message(1));
    expect((await here.load('acc', 'agent', 'key', 'now')).state.messages.map((stored) => stored.message.content)).toEqual(['message 0', 'message 1']);
    const loaded = await here.load('acc', 'agent', 'key', 'now');
    loaded.state.messages.push(message(2));
    expect((await here.find('acc', 'agent', 'key'))?.messages).toHaveLength(2);
  });

  it('refuses a save based on an older version, and writes nothing of it', async () => {
    const storage = await open();
    const conversations = new ConversationsRepository(storage.table<ConversationRow>('conversations'));
    const first = await conversations.load('acc', 'agent', 'key', 'now');
    first.state.messages.push(message(0));
    await conversations.save(first.state, first.version);
    first.state.messages.push(message(1));
    await expect(conversations.save(first.state, first.version)).rejects.toBeInstanceOf(ConditionFailedError);
    expect((await conversations.find('acc', 'agent', 'key'))?.messages).toHaveLength(1);
  });

  it('reads a conversation stored as one row, and moves it to head and message rows at its next write', async () => {
    const storage = await open();
    const table = storage.table<ConversationRow>('conversations');
    const partition = JSON.stringify(['acc', 'agent', 'key']);
    const legacy: ConversationState = { accountId: 'acc', agentId: 'agent', conversationKey: 'key', messages: [message(0), message(1)], approvals: [], createdAt: 'then', updatedAt: 'then' };
    await table.write(partition, [{ type: 'put', key: 'state', value: legacy }]);
    const conversations = new ConversationsRepository(table);
    const loaded = await conversations.load('acc', 'agent', 'key', 'now');
    expect(loaded.state.messages).toHaveLength(2);
    loaded.state.messages.push(message(2));
    await conversations.save(loaded.state, loaded.version);
    expect((await table.list(partition)).map((row) => row.key).sort()).toEqual(['head', 'm:000000000000', 'm:000000000001', 'm:000000000002']);
    expect((await conversations.find('acc', 'agent', 'key'))?.messages.map((stored) => stored.message.content)).toEqual(['message 0', 'message 1', 'message 2']);
  });

  it('loads with one read: every row of a conversation it has not seen (a new one: nothing), the head alone of one it keeps in memory', async () => {
    const storage = await open();
    const { table, reads } = recording(storage.table<ConversationRow>('conversations'));
    const conversations = new ConversationsRepository(table);
    const created = await conversations.load('acc', 'agent', 'key', 'now');
    expect(reads).toEqual(['list']);
    expect(created.version).toBeNull();
    created.state.messages.push(message(0));
    const version = await conversations.save(created.state, created.version);
    reads.length = 0;
    expect((await conversations.load('acc', 'agent', 'key', 'now')).version).toBe(version);
    expect(reads).toEqual(['get head']);
    const { table: elsewhere, reads: readsElsewhere } = recording(storage.table<ConversationRow>('conversations'));
    const loaded = await new ConversationsRepository(elsewhere).load('acc', 'agent', 'key', 'now');
    expect(readsElsewhere).toEqual(['list']);
    expect(loaded.version).toBe(version);
    expect(loaded.state.messages.map((stored) => stored.message.content)).toEqual(['message 0']);
  });

  it('saves a turn with no read of its own when the loaded version is the one kept in memory', async () => {
    const storage = await open();
    const { table, reads } = recording(storage.table<ConversationRow>('conversations'));
    const conversations = new ConversationsRepository(table);
    await appendTo(conversations, message(0), message(1));
    const loaded = await conversations.load('acc', 'agent', 'key', 'now');
    loaded.state.messages.push(message(2), message(3));
    reads.length = 0;
    const version = await conversations.save(loaded.state, loaded.version);
    expect(reads).toEqual([]);
    const fresh = new ConversationsRepository(storage.table<ConversationRow>('conversations'));
    const reloaded = await fresh.load('acc', 'agent', 'key', 'now');
    expect(reloaded.version).toBe(version);
    expect(reloaded.state.messages.map((stored) => stored.message.content)).toEqual(['message 0', 'message 1', 'message 2', 'message 3']);
  });

  it('refuses a save on a version another writer (another replica) moved past, though this one kept the older messages in memory', async () => {
    const storage = await open();
    const table = storage.table<ConversationRow>('conversations');
    const here = new ConversationsRepository(table);
    const there = new ConversationsRepository(table);
    await appendTo(here, message(0));
    const stale = await here.load('acc', 'agent', 'key', 'now');
    await appendTo(there, message(1));
    stale.state.messages.push({ ...message(1), message: { role: 'assistant', content: 'lost' } });
    await expect(here.save(stale.state, stale.version)).rejects.toBeInstanceOf(ConditionFailedError);
    const current = await here.load('acc', 'agent', 'key', 'now');
    expect(current.state.messages.map((stored) => stored.message.content)).toEqual(['message 0', 'message 1']);
    current.state.messages.push(message(2));
    await here.save(current.state, current.version);
    expect((await there.find('acc', 'agent', 'key'))?.messages.map((stored) => stored.message.content)).toEqual(['message 0', 'message 1', 'message 2']);
  });

  it('refuses to create a conversation another writer created meanwhile', async () => {
    const storage = await open();
    const table = storage.table<ConversationRow>('conversations');
    const here = new ConversationsRepository(table);
    const there = new ConversationsRepository(table);
    const mine = await here.load('acc', 'agent', 'key', 'now');
    await appendTo(there, message(0));
    mine.state.messages.push({ ...message(0), message: { role: 'user', content: 'lost' } });
    await expect(here.save(mine.state, mine.version)).rejects.toBeInstanceOf(ConditionFailedError);
    expect((await here.find('acc', 'agent', 'key'))?.messages.map((stored) => stored.message.content)).toEqual(['message 0']);
  });

  it('keeps the messages in memory as stored rows read back give them: JSON, no undefined members', async () => {
    const storage = await open();
    const table = storage.table<ConversationRow>('conversations');
    const here = new ConversationsRepository(table);
    const loaded = await here.load('acc', 'agent', 'key', 'now');
    loaded.state.messages.push(message(0), { message: { role: 'assistant', content: [{ type: 'text', text: 'answer', providerOptions: undefined }] }, turnId: 'turn-0', createdAt: 'now' });
    const version = await here.save(loaded.state, loaded.version);
    const fromMemory = await here.load('acc', 'agent', 'key', 'now');
    expect(fromMemory.version).toBe(version);
    expect(fromMemory.state.messages).toStrictEqual(JSON.parse(JSON.stringify(loaded.state.messages)));
    expect(fromMemory.state.messages[1]!.message.content).toStrictEqual([{ type: 'text', text: 'answer' }]);
  });
});
