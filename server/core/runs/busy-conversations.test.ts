import { describe, expect, it } from 'vitest';
import { InMemoryRunningTurns } from '../coordination/running-turns.js';
import { ConversationBusyError, RateLimitedError } from '../errors.js';
import { lowdbStoragePerTest } from '../storage/test-support/lowdb-per-test.js';
import type { BusyMode } from '../agent-config/busy-mode.js';
import type { RunTicket } from '../turns/busy-gate.js';
import { BusyConversations } from './busy-conversations.js';
import { ConversationInbox, type InboxEntry } from './conversation-inbox.js';

const conversation = { accountId: 'acc_1', agentId: 'agent', conversationKey: 'chat-1' };
const running = { ...conversation, turnId: 'turn_running', eventId: 'evt_running' };

describe('BusyConversations', () => {
  const storage = lowdbStoragePerTest();
  const setUp = (maxWaitingPerConversation = 20) => {
    const runningTurns = new InMemoryRunningTurns();
    const aborted: string[] = [];
    const busy = new BusyConversations({ runningTurns, inbox: new ConversationInbox(storage.open().table<InboxEntry>('inbox')), maxWaitingPerConversation });
    const startRunning = () => runningTurns.register(running, () => aborted.push(running.turnId));
    const admit = (mode: BusyMode, eventId: string, text = eventId) => busy.admit({ ...conversation, eventId, mode, message: { role: 'user', content: text } });
    return { busy, aborted, startRunning, admit };
  };
  const texts = async (ticket: RunTicket) => (await ticket.messages())?.map((message) => message.content);

  it('with no turn running, every mode runs its own message', async () => {
    const { admit } = setUp();
    for (const mode of ['reject', 'queue', 'collect', 'steer', 'interrupt'] as const) {
      const ticket = (await admit(mode, `evt_${mode}`)) as RunTicket;
      expect(ticket.kind).toBe('run');
      expect(ticket.applied).toBeUndefined();
      expect(await texts(ticket)).toEqual([`evt_${mode}`]);
      ticket.leaveLine();
    }
  });

  it('reject refuses with the running eventId, on the registry of any replica or a turn of this process', async () => {
    const { busy, startRunning, admit } = setUp();
    const stop = startRunning();
    await expect(admit('reject', 'evt_new')).rejects.toMatchObject({ code: 'conversation_busy', status: 409, eventId: 'evt_running' });
    stop();
    const leave = busy.running(conversation, 'evt_local');
    await expect(admit('reject', 'evt_new')).rejects.toBeInstanceOf(ConversationBusyError);
    await expect(busy.refuseWhenBusy(conversation, 'reject')).rejects.toMatchObject({ eventId: 'evt_local' });
    await expect(busy.refuseWhenBusy(conversation, 'queue')).resolves.toBeUndefined();
    leave();
    await expect(busy.refuseWhenBusy(conversation, 'reject')).resolves.toBeUndefined();
  });

  it('interrupt cancels the running turn, then runs its message', async () => {
    const { aborted, startRunning, admit } = setUp();
    startRunning();
    const ticket = (await admit('interrupt', 'evt_new')) as RunTicket;
    expect(aborted).toEqual(['turn_running']);
    expect(ticket.applied).toEqual({ mode: 'interrupt', runEventId: 'evt_running' });
    expect(await texts(ticket)).toEqual(['evt_new']);
  });

  it('collect: the first message brings the next turn, which takes them all; the others are handed over to it', async () => {
    const { startRunning, admit } = setUp();
    startRunning();
    const first = (await admit('collect', 'evt_1', 'one')) as RunTicket;
    const second = await admit('collect', 'evt_2', 'two');
    const third = await admit('collect', 'evt_3', 'three');
    expect(first).toMatchObject({ kind: 'run', applied: { mode: 'collect', runEventId: 'evt_1' } });
    expect(second).toEqual({ kind: 'handed-over', applied: { mode: 'collect', runEventId: 'evt_1' } });
    expect(third).toEqual({ kind: 'handed-over', applied: { mode: 'collect', runEventId: 'evt_1' } });
    expect(await texts(first)).toEqual(['one', 'two', 'three']);
  });

  it('collect with nothing running also answers collected messages a turn that never started left behind', async () => {
    const { startRunning, admit } = setUp();
    const stop = startRunning();
    await admit('collect', 'evt_1', 'left behind');
    stop();
    const ticket = (await admit('collect', 'evt_2', 'now')) as RunTicket;
    expect(await texts(ticket)).toEqual(['left behind', 'now']);
  });

  it('steer: taken by the running turn at a boundary, the message runs no turn of its own; not taken, it runs as its own', async () => {
    const { busy, startRunning, admit } = setUp();
    startRunning();
    const steered = (await admit('steer', 'evt_s1', 'turn left')) as RunTicket;
    expect(steered.applied).toEqual({ mode: 'steer', runEventId: 'evt_running' });
    expect(await busy.steeringWaits(conversation)).toBe(true);
    expect((await busy.takeSteering(conversation)).map((message) => message.content)).toEqual(['turn left']);
    expect(await busy.steeringWaits(conversation)).toBe(false);
    expect(await steered.messages()).toBeUndefined();

    const missed = (await admit('steer', 'evt_s2', 'too late')) as RunTicket;
    expect(await texts(missed)).toEqual(['too late']);
  });

  it('queue names the turn running in this process, and refuses past the bound of waiting messages (429)', async () => {
    const { busy, admit } = setUp(2);
    busy.running(conversation, 'evt_here');
    const first = (await admit('queue', 'evt_q1')) as RunTicket;
    const second = (await admit('queue', 'evt_q2')) as RunTicket;
    expect(first.applied).toEqual({ mode: 'queue', runEventId: 'evt_here' });
    await expect(admit('queue', 'evt_q3')).rejects.toBeInstanceOf(RateLimitedError);
    first.leaveLine();
    first.leaveLine();
    const third = (await admit('queue', 'evt_q3')) as RunTicket;
    expect(third.kind).toBe('run');
    await expect(admit('steer', 'evt_q4')).rejects.toBeInstanceOf(RateLimitedError);
    // Refused before it reached the inbox: nothing waits to steer.
    expect(await busy.steeringWaits(conversation)).toBe(false);
    second.leaveLine();
    third.leaveLine();
  });
});
