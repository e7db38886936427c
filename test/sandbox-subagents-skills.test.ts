import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxStack, toolResults, type SandboxStack } from './support/sandbox-stack.js';

/** run_subagent (only from config.subagent) and load_skill (only from config.skills) in real turns against the fixture model. */

const call = (tool: string, input: unknown) => `call ${tool} ${JSON.stringify(input)}`;
const runSubagent = (agentId: string, message: string) => call('run_subagent', { agentId, message });

interface SubagentOutput {
  agentId: string;
  conversationKey: string;
  depth: number;
  status: string;
  text: string;
  deniedApprovals: { toolName: string; reason: string }[];
  error?: string;
}

describe('subagents and skills', () => {
  let stack: SandboxStack;
  let secret: string;
  let accountId: string;
  let turn = 0;
  const key = () => `parent-${(turn += 1)}`;

  beforeAll(async () => {
    stack = await startSandboxStack();
    ({ secret, accountId } = await stack.createAccount('delegator'));
  });
  afterAll(async () => {
    await stack.close();
  });

  const put = async (agentId: string, config: Record<string, unknown>, as = secret) => {
    const reply = await stack.putAgent(as, agentId, { provider: stack.provider(), ...config });
    if (reply.status >= 300) throw new Error(JSON.stringify(reply.body));
  };
  const subagentOutputs = (messages: Parameters<typeof toolResults>[0]) =>
    toolResults(messages).filter((result) => result.toolName === 'run_subagent').map((result) => result.output as SubagentOutput);

  it('run_subagent comes only from config.subagent, and its description lists the agents', async () => {
    await put('helper', { system: 'You help.' });
    await put('lonely', {});
    await stack.chat(secret, 'lonely', key(), 'hello');
    expect(stack.lastOfferedTools()).toEqual([]);
    await put('boss', { subagent: { agents: { helper: { description: 'Answers small questions' } } } });
    await stack.chat(secret, 'boss', key(), 'hello');
    expect(stack.lastOfferedTools()).toEqual(['run_subagent']);
    expect(stack.lastToolDescription('run_subagent')).toContain('- helper: Answers small questions');
  });

  it("a subagent turn returns the other agent's text, in its own conversation derived from the parent's", async () => {
    const conversationKey = key();
    const answer = await stack.chat(secret, 'boss', conversationKey, `${runSubagent('helper', 'what is two and two')}\nthen done`);
    const [output] = subagentOutputs(answer.messages);
    expect(output).toEqual({ agentId: 'helper', conversationKey: `${conversationKey}/subagent/helper`, depth: 1, status: 'completed', text: 'Echo: what is two and two', deniedApprovals: [] });
    expect(answer.text).toContain('Echo: what is two and two');
    const { state } = await stack.core.conversations.load(accountId, 'helper', `${conversationKey}/subagent/helper`, new Date().toISOString());
    expect(state.messages.map((stored) => stored.message.role)).toEqual(['user', 'assistant']);
  });

  it('refuses an agent that is not listed, and an agent of another account', async () => {
    const other = await stack.createAccount('stranger');
    await put('private', {}, other.secret);
    await put('nosy', { subagent: { agents: { private: { description: "Another account's agent" } } } });
    const answer = await stack.chat(secret, 'nosy', key(), `${runSubagent('private', 'tell me your secrets')}\n${runSubagent('helper', 'hi')}\nthen done`);
    const [foreign, unlisted] = toolResults(answer.messages).map((result) => result.output as { error: string });
    expect(foreign?.error).toBe('private could not run: No agent "private" in this account.');
    expect(unlisted?.error).toBe('"helper" is not one of this agent\'s subagents (available: private).');
    const { state } = await stack.core.conversations.load(other.accountId, 'private', `parent-${turn}/subagent/private`, new Date().toISOString());
    expect(state.messages).toEqual([]);
  });

  it('stops at the depth limit, also when an agent calls itself', async () => {
    await put('looper', { subagent: { agents: { looper: { description: 'Itself' } }, maxDepth: 2 } });
    // Each level forwards the rest of the script one level down.
    const innermost = runSubagent('looper', 'bottom');
    const middle = runSubagent('looper', innermost);
    const top = runSubagent('looper', middle);
    const conversationKey = key();
    const answer = await stack.chat(secret, 'looper', conversationKey, top);
    const [first] = subagentOutputs(answer.messages);
    expect(first).toMatchObject({ depth: 1, status: 'completed', conversationKey: `${conversationKey}/subagent/looper` });
    const level2 = await stack.core.conversations.load(accountId, 'looper', `${conversationKey}/subagent/looper/subagent/looper`, new Date().toISOString());
    const level2Results = toolResults(level2.state.messages.map((stored) => stored.message) as Parameters<typeof toolResults>[0]);
    expect(level2Results).toEqual([
      { toolName: 'run_subagent', output: { error: expect.stringContaining('The subagent depth limit is reached: this conversation is already 2 level(s) deep and maxDepth is 2') as unknown } },
    ]);
    const level3 = await stack.core.conversations.load(accountId, 'looper', `${conversationKey}/subagent/looper/subagent/looper/subagent/looper`, new Date().toISOString());
    expect(level3.state.messages).toEqual([]);
  });

  it('denies approvals inside a subagent and lists the denied tools', async () => {
    await put('cautious', { sandbox: {}, workspace: { notes: { path: 'cautious', permissionMode: 'ask-writes' } } });
    await put('manager', { subagent: { agents: { cautious: { description: 'Writes notes, carefully' } } } });
    const answer = await stack.chat(secret, 'manager', key(), `${runSubagent('cautious', call('write', { path: 'x.md', content: 'x' }))}\nthen done`);
    const [output] = subagentOutputs(answer.messages);
    expect(output).toMatchObject({ status: 'completed', deniedApprovals: [{ toolName: 'write', reason: 'write needs an approval, and approvals cannot be given inside a subagent.' }] });
    expect(output?.text).toContain('approvals cannot be given inside a subagent');
    expect(answer.status).toBe('completed');
  });

  it('load_skill comes only from config.skills, lists the skills, and loads inline and file instructions', async () => {
    const skillFolder = path.join(stack.accountFolder(accountId), 'kb', 'skills');
    await mkdir(skillFolder, { recursive: true });
    await writeFile(path.join(skillFolder, 'style.md'), 'Write short sentences.\n');
    await put('skilled', {
      skills: {
        review: { description: 'How we review code', instructions: 'Check the tests first.' },
        style: { description: 'House style', file: 'kb/skills/style.md' },
        missing: { description: 'Not written yet', file: 'kb/skills/missing.md' },
      },
    });
    const answer = await stack.chat(secret, 'skilled', key(), `${call('load_skill', { name: 'review' })}\n${call('load_skill', { name: 'style' })}\n${call('load_skill', { name: 'missing' })}\n${call('load_skill', { name: 'nope' })}\nthen done`);
    expect(stack.lastOfferedTools()).toEqual(['load_skill']);
    const description = stack.lastToolDescription('load_skill') ?? '';
    expect(description).toContain('- review: How we review code');
    expect(description).toContain('- style: House style');
    expect(toolResults(answer.messages).map((result) => result.output)).toEqual([
      { name: 'review', description: 'How we review code', instructions: 'Check the tests first.' },
      { name: 'style', description: 'House style', instructions: 'Write short sentences.\n' },
      { error: 'The skill "missing" could not be loaded: "kb/skills/missing.md" does not exist.' },
      { error: 'There is no skill "nope" (available: review, style, missing).' },
    ]);
    await stack.chat(secret, 'helper', key(), 'hi');
    expect(stack.lastOfferedTools()).not.toContain('load_skill');
  });

  it('a skill file behind a symlink that leads out of the bucket is refused', async () => {
    const skillFolder = path.join(stack.accountFolder(accountId), 'kb', 'skills');
    await symlink('/etc/passwd', path.join(skillFolder, 'sneaky.md'));
    await put('tricked', { skills: { sneaky: { description: 'Looks harmless', file: 'kb/skills/sneaky.md' } } });
    const answer = await stack.chat(secret, 'tricked', key(), `${call('load_skill', { name: 'sneaky' })}\nthen done`);
    expect((toolResults(answer.messages)[0]?.output as { error: string }).error).toContain('symbolic link that leads outside');
  });
});
