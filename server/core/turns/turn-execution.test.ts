import { tool, type Tool, type ToolSet, type UIMessageChunk } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { temporaryFolderPerTest } from '../../../test/support/temporary-folder.js';
import type { Agent } from '../agents/agent.js';
import type { AsyncRequestRecord } from '../runs/status-row.js';
import { AsyncRequestTransitions } from '../runs/status-row-transitions.js';
import { AsyncRequestsRepository } from '../runs/status-rows-repository.js';
import { AsyncSettlement } from '../async-tools/async-settlement.js';
import { AsyncToolCompletions } from '../async-tools/async-tool-completions.js';
import type { AsyncTableRow } from '../async-tools/async-tool-result.js';
import { AsyncToolResultsRepository } from '../async-tools/async-tool-results-repository.js';
import { ContinuationDispatcher } from '../runs/continuation-dispatcher.js';
import type { ConversationState } from '../conversations/conversation.js';
import { ConversationsRepository } from '../conversations/conversations-repository.js';
import { silentLogger } from '../logger.js';
import { LowdbStorage } from '../storage/lowdb-storage.js';
import type { TurnRunUsage } from '../usage/account-usage.js';
import { LiveTokenCount } from '../usage/live-token-count.js';
import { RunTokenBudget } from '../usage/run-token-budget.js';
import type { TurnRequest } from './turn-types.js';
import { runTurnToEnd } from '../runs/run-turn-to-end.js';
import { saveConversation } from './save-conversation.js';
import { type PassHolder, TurnExecution } from './turn-execution.js';

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

function textReply(text: string): LanguageModelV4StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: text },
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  ];
}

function toolCall(toolName: string): LanguageModelV4StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'tool-call', toolCallId: `call-${toolName}`, toolName, input: '{}' },
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
  ];
}

/** A model that answers each call with the next scripted reply. */
function scriptedModel(replies: (LanguageModelV4StreamPart[] | Error)[]): MockLanguageModelV4 {
  let call = 0;
  return new MockLanguageModelV4({
    doStream: async () => {
      const reply = replies[Math.min(call++, replies.length - 1)]!;
      if (reply instanceof Error) throw reply;
      return { stream: convertArrayToReadableStream(reply) };
    },
  });
}

describe('TurnExecution', () => {
  const folder = temporaryFolderPerTest();
  const storages: LowdbStorage[] = [];
  afterEach(async () => {
    for (const storage of storages.splice(0)) await storage.close();
  });

  async function prepare(options: { model: MockLanguageModelV4; tools?: (holder: PassHolder) => ToolSet; request?: Partial<TurnRequest>; budget?: RunTokenBudget }) {
    const storage = new LowdbStorage(folder.path);
    storages.push(storage);
    const conversations = new ConversationsRepository(storage.table<ConversationState>('conversations'));
    const asyncResults = new AsyncToolResultsRepository(storage.table<AsyncTableRow>('async'));
    const requests = new AsyncRequestsRepository(storage.table<AsyncRequestRecord>('events'));
    const dispatched: string[] = [];
    const dispatcher = new ContinuationDispatcher({ push: (job) => void dispatched.push(job.kind === 'continuation' ? job.groupId : job.eventId) }, silentLogger);
    const completions = new AsyncToolCompletions(new AsyncSettlement(asyncResults), dispatcher);
    const request: TurnRequest = { accountId: 'acc', agentId: 'agent', conversationKey: 'k', transport: 'json', approvalPolicy: 'ask', input: { kind: 'user', message: { role: 'user', content: 'hi' } }, ...options.request };
    const loaded = await conversations.load('acc', 'agent', 'k', new Date().toISOString());
    loaded.state.messages.push({ message: { role: 'user', content: 'hi' }, turnId: 'turn_1', createdAt: new Date().toISOString() });
    const holder: PassHolder = {};
    let released = 0;
    const recorded: TurnRunUsage[] = [];
    const agent: Agent = { accountId: 'acc', agentId: 'agent', config: { maxSteps: 3 } as Agent['config'], createdAt: '', updatedAt: '' };
    const execution = new TurnExecution(
      {
        logger: silentLogger,
        now: () => new Date(),
        defaultMaxSteps: 8,
        modelMaxRetries: 0,
        sameInvocationTimeoutMs: 60_000,
        asyncResults,
        completions,
        runReports: new AsyncRequestTransitions(requests),
        save: (state, version) => saveConversation(conversations, state, version),
        usage: { record: async (run) => void recorded.push(run) },
      },
      {
        request,
        agent,
        agentModel: { model: options.model, providerName: 'openai', modelId: 'mock-model', providerTools: {}, callSettings: {}, providerOptions: undefined },
        tools: options.tools?.(holder) ?? {},
        ...(options.budget ? { budget: options.budget } : {}),
        state: loaded.state,
        version: loaded.version,
        turnId: 'turn_1',
        eventId: 'evt_turn',
        firstNewMessage: 0,
        release: () => (released += 1),
        holder,
      },
    );
    return { execution, conversations, requests, asyncResults, dispatched, recorded, released: () => released };
  }

  /** A tool routed through the running pass's async coordinator, as the runner wires it. */
  function asyncTool(holder: PassHolder, name: string, execution: 'same-invocation' | 'external-dispatch', run: () => Promise<unknown>): Tool {
    const original = tool({ inputSchema: z.object({}), execute: run });
    return { ...original, execute: (input: unknown, options) => holder.current!.wrap(name, original as Tool, { async: true, execution }).execute!(input, options) } as Tool;
  }

  it('streams a completed turn, stores its messages and releases the conversation once', async () => {
    const { execution, conversations, released } = await prepare({ model: scriptedModel([textReply('Hello there')]) });
    const chunks: UIMessageChunk[] = [];
    const result = await runTurnToEnd(execution.run([]), (chunk) => chunks.push(chunk));
    expect(result).toMatchObject({ status: 'completed', text: 'Hello there', eventId: 'evt_turn', pendingAsyncTools: [] });
    expect(chunks[0]).toMatchObject({ type: 'start' });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'completed', turnId: 'turn_1' } });
    const stored = await conversations.find('acc', 'agent', 'k');
    expect(stored?.messages.map((message) => message.message.role)).toEqual(['user', 'assistant']);
    expect(released()).toBe(1);
  });

  it('ends failed with an upstream error when the model call fails', async () => {
    const { execution, released } = await prepare({ model: scriptedModel([new Error('model unavailable')]) });
    const chunks: UIMessageChunk[] = [];
    const result = await runTurnToEnd(execution.run([]), (chunk) => chunks.push(chunk));
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ kind: 'upstream' });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'failed' } });
    expect(released()).toBe(1);
  });

  it('waits for same-invocation work, settles it, and gives its result to the model in a next pass', async () => {
    const model = scriptedModel([toolCall('lookup'), textReply('working on it'), textReply('the answer is 42')]);
    const { execution, asyncResults } = await prepare({ model, tools: (holder) => ({ lookup: asyncTool(holder, 'lookup', 'same-invocation', async () => ({ answer: 42 })) }) });
    const chunks: UIMessageChunk[] = [];
    const result = await runTurnToEnd(execution.run([]), (chunk) => chunks.push(chunk));
    expect(result.status).toBe('completed');
    expect(result.text).toContain('the answer is 42');
    expect(chunks.filter((chunk) => chunk.type === 'data-async-tool-settled')).toHaveLength(1);
    expect(result.messages.some((message) => message.role === 'tool' && JSON.stringify(message.content).includes('"answer":42'))).toBe(true);
    const [groupId] = await asyncResults.groupIds();
    expect((await asyncResults.snapshot(groupId!)).results.map((row) => row.value.status)).toEqual(['completed']);
  });

  it('waits for external work: the status row says so and the sealed group is not dispatched before it settles', async () => {
    const model = scriptedModel([toolCall('dispatch'), textReply('handed over')]);
    const { execution, requests, asyncResults, dispatched } = await prepare({ model, tools: (holder) => ({ dispatch: asyncTool(holder, 'dispatch', 'external-dispatch', async () => ({ accepted: true })) }) });
    const result = await runTurnToEnd(execution.run([]));
    expect(result.status).toBe('waiting_async_tools');
    expect(result.pendingAsyncTools).toMatchObject([{ toolName: 'dispatch', execution: 'external-dispatch', status: 'processing' }]);
    expect(await requests.get('evt_turn')).toMatchObject({ status: 'waiting_async_tools', transport: 'json', pendingAsyncTools: [{ toolName: 'dispatch' }] });
    const [groupId] = await asyncResults.groupIds();
    expect((await asyncResults.snapshot(groupId!)).group?.value).toMatchObject({ sealed: true });
    expect(dispatched).toEqual([]);
  });

  it('denies approvals itself under the deny policy and lets the model go on', async () => {
    const model = scriptedModel([toolCall('delete'), textReply('I could not delete it')]);
    const guarded = tool({ inputSchema: z.object({}), needsApproval: true, execute: async () => ({ deleted: true }) });
    const { execution } = await prepare({ model, tools: () => ({ delete: guarded }), request: { approvalPolicy: 'deny', denialReason: (name) => `${name} is not allowed here` } });
    const chunks: UIMessageChunk[] = [];
    const result = await runTurnToEnd(execution.run([]), (chunk) => chunks.push(chunk));
    expect(result.status).toBe('completed');
    expect(result.deniedApprovals).toEqual([{ toolName: 'delete', reason: 'delete is not allowed here' }]);
    expect(chunks.some((chunk) => chunk.type === 'data-approval-denied')).toBe(true);
    expect(result.text).toContain('I could not delete it');
  });

  describe('the daily token budget', () => {
    /** A budget of `limit` tokens of which `spent` were used before the run. */
    const budgetOf = (limit: number, spent = 0, live = new LiveTokenCount()) => new RunTokenBudget(live, { accountId: 'acc', limit, spentAtStart: spent, now: () => new Date() });
    const lookup = () => ({ lookup: tool({ inputSchema: z.object({}), execute: async () => ({ found: true }) }) });

    it('stops a tool loop before its next model call once a step spent the budget, keeping what it stored', async () => {
      // Each call uses 2 tokens: the first spends the budget, so the loop makes no second call.
      const model = scriptedModel([toolCall('lookup'), toolCall('lookup'), textReply('done')]);
      const { execution, conversations, recorded } = await prepare({ model, tools: lookup, budget: budgetOf(2) });
      const chunks: UIMessageChunk[] = [];
      const result = await runTurnToEnd(execution.run([]), (chunk) => chunks.push(chunk));
      expect(model.doStreamCalls).toHaveLength(1);
      expect(result).toMatchObject({ status: 'failed', error: { kind: 'budget' } });
      expect(result.error?.message).toContain('daily token budget is spent: 2 of 2 tokens');
      expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'failed', finishReason: 'budget_exhausted', error: { code: 'rate_limited' } } });
      const stored = await conversations.find('acc', 'agent', 'k');
      expect(stored?.messages.map((message) => message.message.role)).toEqual(['user', 'assistant', 'tool']);
      expect(recorded.map((run) => run.usage.totalTokens)).toEqual([2]);
    });

    it('makes no model call when the run starts with the budget spent (a continuation), and ends failed', async () => {
      const model = scriptedModel([textReply('never')]);
      const { execution } = await prepare({ model, budget: budgetOf(10, 10), request: { input: undefined } });
      const result = await runTurnToEnd(execution.run([]));
      expect(model.doStreamCalls).toHaveLength(0);
      expect(result).toMatchObject({ status: 'failed', error: { kind: 'budget' } });
    });

    it("sees other runs' calls of the account in this process without reading storage", async () => {
      const live = new LiveTokenCount();
      const budget = budgetOf(5, 0, live);
      // A subagent's or another turn's call ended meanwhile: 4 tokens, not yet written anywhere.
      budgetOf(100, 0, live).callEnded(4);
      const model = scriptedModel([toolCall('lookup'), textReply('done')]);
      const { execution } = await prepare({ model, tools: lookup, budget });
      const result = await runTurnToEnd(execution.run([]));
      expect(model.doStreamCalls).toHaveLength(1);
      expect(result.error?.kind).toBe('budget');
    });
  });

  it('counts a call cut short by a cancel: estimated from the request and what it streamed', async () => {
    let streamed!: () => void;
    const started = new Promise<void>((resolve) => (streamed = resolve));
    const model = new MockLanguageModelV4({
      doStream: async ({ abortSignal }) => ({
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            controller.enqueue({ type: 'text-start', id: 't' });
            controller.enqueue({ type: 'text-delta', id: 't', delta: 'x'.repeat(400) });
            streamed();
            // No usage ever comes: the provider is cut off mid-stream.
            abortSignal?.addEventListener('abort', () => controller.error(abortSignal.reason));
          },
        }),
      }),
    });
    const cancel = new AbortController();
    const { execution, recorded, conversations } = await prepare({ model, request: { signal: cancel.signal } });
    const turn = execution.run([]);
    void started.then(() => setTimeout(() => cancel.abort(new DOMException('The turn was cancelled.', 'AbortError')), 20));
    const result = await runTurnToEnd(turn);
    expect(result.status).toBe('cancelled');
    // 400 streamed characters: 100 output tokens; the input from the request's messages.
    expect(result.usage).toMatchObject({ outputTokens: 100 });
    expect(result.usage?.estimatedTokens).toBe(result.usage?.totalTokens);
    expect(result.usage!.inputTokens).toBeGreaterThan(0);
    expect(recorded).toMatchObject([{ startsTurn: true, usage: { outputTokens: 100, estimatedTokens: result.usage!.totalTokens } }]);
    const stored = await conversations.find('acc', 'agent', 'k');
    expect(stored?.messages.at(-1)).toMatchObject({ cancelled: true, usage: { outputTokens: 100 } });
  });

  it('counts a call that failed mid-stream, estimated, beside the failure', async () => {
    const model = new MockLanguageModelV4({
      doStream: async () => ({
        stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
          { type: 'stream-start', warnings: [] },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'y'.repeat(80) },
          { type: 'error', error: new Error('the connection broke') },
        ]),
      }),
    });
    const { execution, recorded } = await prepare({ model });
    const result = await runTurnToEnd(execution.run([]));
    expect(result.status).toBe('failed');
    expect(result.usage).toMatchObject({ outputTokens: 20 });
    expect(result.usage?.estimatedTokens).toBe(result.usage?.totalTokens);
    expect(recorded).toMatchObject([{ usage: { outputTokens: 20 } }]);
  });
});
