import { describe, expect, it } from 'vitest';
import { lowdbStoragePerTest } from '../storage/test-support/lowdb-per-test.js';
import { ConversationInbox, type InboxEntry } from './conversation-inbox.js';

const conversation = { accountId: 'acc_1', agentId: 'agent', conversationKey: 'chat-1' };
const message = (text: string) => ({ role: 'user' as const, content: text });
const entry = (mode: 'collect' | 'steer', eventId: string, text: string) => ({ mode, eventId, message: message(text), createdAt: '2026-11-27T00:00:00.000Z' });

describe('ConversationInbox', () => {
  const storage = lowdbStoragePerTest();
  const inbox = () => new ConversationInbox(storage.open().table<InboxEntry>('inbox'));

  it('names the first waiting entry of a mode: the collected message that brings the next turn', async () => {
    const box = inbox();
    expect((await box.add(conversation, entry('collect', 'evt_a', 'one'))).firstEventId).toBe('evt_a');
    expect((await box.add(conversation, entry('collect', 'evt_b', 'two'))).firstEventId).toBe('evt_a');
    // Another mode, or another conversation, has its own first.
    expect((await box.add(conversation, entry('steer', 'evt_c', 'three'))).firstEventId).toBe('evt_c');
    expect((await box.add({ ...conversation, conversationKey: 'chat-2' }, entry('collect', 'evt_d', 'four'))).firstEventId).toBe('evt_d');
  });

  it('takes what it is asked for, in arrival order, once', async () => {
    const box = inbox();
    for (const text of ['one', 'two', 'three']) await box.add(conversation, entry('collect', `evt_${text}`, text));
    await box.add(conversation, entry('steer', 'evt_s', 'steer'));
    const [first, second] = await Promise.all([box.take(conversation, (waiting) => waiting.mode === 'collect'), box.take(conversation, (waiting) => waiting.mode === 'collect')]);
    const taken = [...first!, ...second!].map((waiting) => waiting.message.content);
    expect(taken).toEqual(['one', 'two', 'three']);
    expect(await box.holds(conversation, (waiting) => waiting.mode === 'collect')).toBe(false);
    expect(await box.holds(conversation, (waiting) => waiting.mode === 'steer')).toBe(true);
  });

  it('an entry taken by its id is gone for whoever asks next', async () => {
    const box = inbox();
    const { entryId } = await box.add(conversation, entry('steer', 'evt_s', 'steer'));
    expect((await box.take(conversation, (waiting) => waiting.entryId === entryId)).map((waiting) => waiting.eventId)).toEqual(['evt_s']);
    expect(await box.take(conversation, (waiting) => waiting.entryId === entryId)).toEqual([]);
  });
});
