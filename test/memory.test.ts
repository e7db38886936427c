import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMemorySettings } from '../server/core/memory/memory-settings.js';
import { startChatStack, type ChatStack } from './support/chat-stack.js';
import { requestJson } from './support/json-request.js';

interface ChatAnswer {
  status: string;
  text: string;
  messages: { role: string; content: unknown }[];
}

interface SentMessage {
  role: string;
  content: unknown;
}

/** Memory on the fake model (Chat Completions): notes saved by a tool call, given to later turns as system text. */
describe('memory beyond the conversation (config.memory)', () => {
  let stack: ChatStack;
  let secret: string;
  let otherSecret: string;

  beforeAll(async () => {
    stack = await startChatStack({ memory: { ...defaultMemorySettings, maxNotesPerScope: 3 } });
    secret = (await stack.createAccount('memory-owner')).secret;
    otherSecret = (await stack.createAccount('memory-other')).secret;
    const agent = (scope: string) => ({ provider: stack.provider('chat'), system: 'You are the agent.', memory: { scope } });
    await stack.putAgent(secret, 'by-user', agent('user'));
    await stack.putAgent(secret, 'by-conversation', agent('conversation'));
    await stack.putAgent(secret, 'by-agent', agent('agent'));
    await stack.putAgent(secret, 'forgetful', { provider: stack.provider('chat'), memory: { enabled: false } });
    await stack.putAgent(otherSecret, 'by-user', agent('user'));
  });
  afterAll(async () => {
    await stack.close();
  });

  /** Runs one turn and returns its answer and the bodies of the model calls it made. */
  const turn = async (agentId: string, conversationKey: string, message: string, as = secret) => {
    const from = stack.model.callCount();
    const response = await stack.chat(as, agentId, { conversationKey, message });
    const answer = (await response.json()) as ChatAnswer;
    expect(response.status).toBe(200);
    const sent = stack.model.calls().slice(from).map((call) => (call.body as { messages: SentMessage[] }).messages);
    return { answer, sent };
  };
  const save = (agentId: string, key: string, title: string, text: string, as = secret) => turn(agentId, key, `call memory_save ${JSON.stringify({ title, text })}`, as);
  const systemText = (messages: SentMessage[]) => messages.filter((message) => message.role === 'system').map((message) => String(message.content)).join('\n');
  const savedId = (answer: ChatAnswer) => /"id":"(note_[^"]+)"/.exec(JSON.stringify(answer.messages))![1]!;

  it('a note saved in one conversation reaches the model calls of the same user in another, after the system prompt, and is never stored there', async () => {
    const saved = await save('by-user', 'alice:support-1', 'Tea', 'Alice likes green tea.');
    expect(saved.answer.status).toBe('completed');
    expect(saved.answer.text).toContain('memory_save: {"saved":{"id":"note_');

    const later = await turn('by-user', 'alice:support-2', 'Which tea do I like?');
    const system = systemText(later.sent[0]!);
    expect(system).toContain('Alice likes green tea.');
    expect(system.indexOf('You are the agent.')).toBeLessThan(system.indexOf('Alice likes green tea.'));
    const stored = await requestJson<{ messages: unknown[] }>(`${stack.agentUrl}/agents/by-user/conversations/alice:support-2`, { secret });
    expect(JSON.stringify(stored.body)).toContain('Which tea do I like?');
    expect(JSON.stringify(stored.body)).not.toContain('green tea');
  });

  it("another user's turns, and another account's, never get the note", async () => {
    await save('by-user', 'carol:1', 'Secret', 'Carol keeps the launch code 7781.');
    for (const [as, key] of [[secret, 'dave:1'], [secret, 'dave'], [otherSecret, 'carol:1'], [otherSecret, 'carol:2']] as const) {
      const { sent } = await turn('by-user', key, 'What is the launch code?', as);
      expect(JSON.stringify(sent)).not.toContain('7781');
    }
    // The same user still gets it.
    expect(JSON.stringify((await turn('by-user', 'carol:2', 'What is the launch code?')).sent)).toContain('7781');
  });

  it('memory_search finds a note and memory_forget removes it: later turns no longer get it', async () => {
    await save('by-user', 'erin:1', 'Parking', 'Erin parks on level 3.');
    const found = await turn('by-user', 'erin:2', 'call memory_search {"query":"where does erin park"}');
    expect(found.answer.text).toContain('Erin parks on level 3.');
    const forgotten = await turn('by-user', 'erin:3', `call memory_forget {"id":"${savedId(found.answer)}"}`);
    expect(forgotten.answer.text).toContain('memory_forget: {"forgotten":');
    const after = await turn('by-user', 'erin:4', 'Where do I park?');
    expect(JSON.stringify(after.sent)).not.toContain('level 3');
    const again = await turn('by-user', 'erin:5', `call memory_forget {"id":"${savedId(found.answer)}"}`);
    expect(JSON.stringify(again.answer.messages)).toContain('There is no note');
  });

  it('a full scope refuses memory_save with a clear tool error, and the turn goes on', async () => {
    for (const index of [1, 2, 3]) expect((await save('by-user', 'frank:1', `Note ${index}`, `fact ${index}`)).answer.text).toContain('"saved"');
    const refused = await save('by-user', 'frank:2', 'Note 4', 'fact 4');
    expect(refused.answer.status).toBe('completed');
    const toolMessage = JSON.stringify(refused.answer.messages.filter((message) => message.role === 'tool'));
    expect(toolMessage).toContain('error');
    expect(toolMessage).toContain('Memory is full: this scope holds 3 notes, the most it may hold (3). Forget a note with memory_forget before saving another.');
    expect(JSON.stringify((await turn('by-user', 'frank:3', 'facts?')).sent)).not.toContain('fact 4');
  });

  it('scope conversation stays in its conversation; scope agent reaches every conversation of the agent; disabled memory offers no tools', async () => {
    await save('by-conversation', 'gina:1', 'Colour', 'Gina likes teal.');
    expect(JSON.stringify((await turn('by-conversation', 'gina:1', 'colour?')).sent)).toContain('Gina likes teal.');
    expect(JSON.stringify((await turn('by-conversation', 'gina:2', 'colour?')).sent)).not.toContain('Gina likes teal.');

    await save('by-agent', 'gina:1', 'Office', 'The office closes at 6.');
    expect(JSON.stringify((await turn('by-agent', 'henry:9', 'hours?')).sent)).toContain('The office closes at 6.');

    const disabled = await save('forgetful', 'gina:1', 'x', 'y');
    expect(disabled.answer.text).toContain('Tool memory_save is not available.');
  });

  it('refuses a bad config.memory, naming the path', async () => {
    const response = await fetch(`${stack.accountUrl}/accounts/me/agents/bad`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ config: { provider: stack.provider('chat'), memory: { scope: 'team' } } }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('config.memory.scope');
  });
});
