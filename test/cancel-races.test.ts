import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFixtureModel, type FixtureModelServer } from '../fixtures/model-server/fixture-model-server.js';
import { inMemoryCoordination } from '../server/core/coordination/coordination.js';
import { type CancelTarget, InMemoryRunningTurns, type RunningTurn } from '../server/core/coordination/running-turns.js';
import { createHarnessCore, type HarnessCore } from '../server/core/composition/harness-core.js';
import { defineInfrastructure } from '../server/core/infrastructure.js';
import { defaultServiceLimits } from '../server/core/limits/service-limits.js';
import { defaultSandboxSettings } from '../server/core/sandbox/sandbox-settings.js';
import type { Storage } from '../server/core/storage/table-store.js';
import { type ConversationLocks, conversationLockKey } from '../server/core/coordination/conversation-locks.js';
import { KeyedMutex } from '../server/core/coordination/keyed-mutex.js';
import { InterleavingStorage } from './support/interleaving-storage.js';
import { temporaryFolder } from './support/temporary-folder.js';
import { testAdminSecret, testEncryptionSecret } from './support/test-services.js';
import { openTestStorage } from './support/test-storage.js';
import { waitUntil } from './support/wait-until.js';

/**
 * Cancel requests that race a worker or a starting turn, on the real core (the background
 * worker, the turn runner, the fixture model over HTTP, lowdb or PostgreSQL). Each race is
 * made to happen at its worst moment by holding one step of the cancel (a storage read, the
 * conversation lock) until the other side has moved: no sleeps decide the order.
 */
const modelKey = 'sk-fixture-model-key-0123456789';
const infrastructure = defineInfrastructure('test');

/**
 * The turn lock, able to hold the next taker of one conversation just after it took the lock
 * (a turn, before it registers as running) until someone else asks for the same lock.
 */
class HoldingLocks implements ConversationLocks {
  private readonly mutex = new KeyedMutex();
  private hold: { key: string; holding: boolean; taken: () => void; letGo: () => void; let: Promise<void> } | undefined;

  /** Resolves once the next taker of `key` holds it and waits. */
  holdNext(key: string): Promise<void> {
    let taken!: () => void;
    let letGo!: () => void;
    const isTaken = new Promise<void>((resolve) => (taken = resolve));
    const released = new Promise<void>((resolve) => (letGo = resolve));
    this.hold = { key, holding: false, taken, letGo, let: released };
    return isTaken;
  }

  async acquire(key: string): Promise<() => void> {
    const hold = this.hold;
    if (hold?.key === key && !hold.holding) {
      hold.holding = true;
      const unlock = await this.mutex.acquire(key);
      hold.taken();
      await hold.let;
      return unlock;
    }
    if (hold?.key === key) {
      this.hold = undefined;
      hold.letGo();
    }
    return this.mutex.acquire(key);
  }
}

/** The in-process registry, with a step run once when a lookup for one target finds nothing. */
class WatchedRunningTurns extends InMemoryRunningTurns {
  private onMiss: { matches: (target: CancelTarget) => boolean; run: () => Promise<void> } | undefined;

  afterNextMiss(matches: (target: CancelTarget) => boolean, run: () => Promise<void>): void {
    this.onMiss = { matches, run };
  }

  override async requestCancel(target: CancelTarget): Promise<RunningTurn | undefined> {
    const found = await super.requestCancel(target);
    const onMiss = this.onMiss;
    if (!found && onMiss?.matches(target)) {
      this.onMiss = undefined;
      await onMiss.run();
    }
    return found;
  }
}

describe('cancel races', () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  let storage: InterleavingStorage;
  let inner: Storage;
  let model: FixtureModelServer;
  let core: HarnessCore;
  let locks: HoldingLocks;
  let runningTurns: WatchedRunningTurns;
  let accountId: string;

  beforeEach(async () => {
    folder = await temporaryFolder();
    inner = await openTestStorage(`${folder.path}/tables`);
    storage = new InterleavingStorage(inner);
    model = await startFixtureModel({ apiKey: modelKey, chunkDelayMs: 20 });
    locks = new HoldingLocks();
    runningTurns = new WatchedRunningTurns();
    core = createHarnessCore({
      storage,
      infrastructure,
      secrets: { adminSecret: testAdminSecret, configEncryptionSecret: testEncryptionSecret },
      modelMaxRetries: 0,
      // One worker: a request submitted while it runs another stays queued.
      asyncWorkerConcurrency: 1,
      coordination: { ...inMemoryCoordination(), conversationLocks: locks, runningTurns },
      outbound: { mode: 'any', allow: [] },
      sandboxSettings: defaultSandboxSettings,
      limits: defaultServiceLimits,
    });
    await core.start();
    accountId = (await core.accounts.create({ username: 'racer', description: 'test' })).accountId;
    await core.agents.put(accountId, 'talker', { provider: { openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture-model', api: 'chat' } } });
  });
  afterEach(async () => {
    // Whatever still runs is stopped, so the worker can stop.
    for (const turnId of runningTurns.turnIds()) runningTurns.abortLocal(turnId);
    await core.stop();
    await model.close();
    await inner.close();
    await folder.remove();
  });

  const submit = (conversationKey: string, text: string) =>
    core.asyncRequests.submit({ accountId, agentId: 'talker', conversationKey, input: { kind: 'user', message: { role: 'user', content: text } } });
  const statusOf = async (eventId: string) => (await core.asyncRequests.status(accountId, eventId)).status;
  const runningEvent = (eventId: string) => runningTurns.findRunning({ accountId, eventId });
  const lastMessage = async (conversationKey: string) => (await core.conversations.find(accountId, 'talker', conversationKey))?.messages.at(-1);

  /** The worker busy with a turn that waits on the model, so the next request stays queued. */
  const occupyWorker = async () => {
    const { eventId } = await submit('blocker', 'long: 2000');
    await waitUntil('the blocking turn to run', () => runningEvent(eventId), { timeoutMs: 15_000, intervalMs: 25 });
    return { free: async () => void (await runningTurns.requestCancel({ accountId, eventId })) };
  };

  it('cancel by event: a worker claims the queued request between the read and the write; its turn is stopped, not left to run under a cancelled row', async () => {
    const blocker = await occupyWorker();
    const { eventId } = await submit('raced', 'long: 400');
    expect(await statusOf(eventId)).toBe('queued');
    // The cancel reads `queued`; before it writes, the worker claims the row and the turn starts.
    storage.afterNextRead(infrastructure.tables.events, eventId, async () => {
      await blocker.free();
      await waitUntil('the claimed turn to register', () => runningEvent(eventId), { timeoutMs: 15_000, intervalMs: 25 });
    });
    const answer = await core.cancellation.cancelEvent(accountId, eventId);
    expect(answer).toMatchObject({ cancelled: true, state: 'running', eventId, turnId: expect.stringMatching(/^turn_/) });
    const ended = await waitUntil('the request to end', async () => {
      const status = await statusOf(eventId);
      return status === 'processing' ? undefined : status;
    }, { timeoutMs: 15_000, intervalMs: 25 });
    expect(ended).toBe('cancelled');
    // The turn itself stopped: its stored answer is the cut-short text, marked.
    expect(await lastMessage('raced')).toMatchObject({ cancelled: true, message: { role: 'assistant' } });
  });

  it('cancel by conversation: a turn that holds the conversation but has not registered yet is waited for and stopped', async () => {
    const key = 'starting';
    const held = locks.holdNext(conversationLockKey(accountId, 'talker', key));
    const started = core.turns.start({ accountId, agentId: 'talker', conversationKey: key, input: { kind: 'user', message: { role: 'user', content: 'long: 200' } }, transport: 'json', approvalPolicy: 'ask' });
    await held;
    // The cancel finds nothing registered and asks for the lock, which lets the turn go on.
    const answer = await core.cancellation.cancelConversation(accountId, 'talker', key);
    expect(answer).toMatchObject({ cancelled: true, state: 'running', turnId: expect.stringMatching(/^turn_/) });
    const result = await (await started).result;
    expect(result.status).toBe('cancelled');
    expect(await lastMessage(key)).toMatchObject({ cancelled: true });
  });

  it('cancel by conversation: an /async request a worker claims just after the cancel looked is found by its retry and stopped', async () => {
    const blocker = await occupyWorker();
    const key = 'queued';
    const { eventId } = await submit(key, 'long: 400');
    expect(await statusOf(eventId)).toBe('queued');
    // Nothing runs or waits when the cancel looks; while it holds the lock to check for a
    // waiting run, the worker claims the request, whose turn then waits for that lock.
    runningTurns.afterNextMiss(
      (target) => 'conversationKey' in target && target.conversationKey === key,
      async () => {
        storage.afterNextRead(infrastructure.tables.conversations, JSON.stringify([accountId, 'talker', key]), async () => {
          await blocker.free();
          await waitUntil('the worker to claim the request', async () => ((await statusOf(eventId)) === 'processing' ? true : undefined), { timeoutMs: 15_000, intervalMs: 25 });
        });
      },
    );
    const answer = await core.cancellation.cancelConversation(accountId, 'talker', key);
    expect(answer).toMatchObject({ cancelled: true, state: 'running', eventId });
    const ended = await waitUntil('the request to end', async () => {
      const status = await statusOf(eventId);
      return status === 'processing' ? undefined : status;
    }, { timeoutMs: 15_000, intervalMs: 25 });
    expect(ended).toBe('cancelled');
    expect(await lastMessage(key)).toMatchObject({ cancelled: true });
  });
});
