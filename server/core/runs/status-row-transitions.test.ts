import { describe, expect, it } from 'vitest';
import { lowdbStoragePerTest } from '../storage/test-support/lowdb-per-test.js';
import type { AsyncRequestRecord } from './status-row.js';
import { AsyncRequestTransitions } from './status-row-transitions.js';
import { AsyncRequestsRepository } from './status-rows-repository.js';

const request = { eventId: 'evt_one', accountId: 'acc', agentId: 'agent', conversationKey: 'k', transport: 'async' as const, input: { kind: 'user' as const, message: { role: 'user' as const, content: 'x' } } };
const finished = { text: 'done', messages: [], pendingApprovals: [] };

describe('AsyncRequestTransitions', () => {
  const { open } = lowdbStoragePerTest();

  function setUp() {
    const repository = new AsyncRequestsRepository(open().table<AsyncRequestRecord>('events'));
    const transitions = new AsyncRequestTransitions(repository);
    const seen: string[] = [];
    transitions.onStatusChange((row) => seen.push(row.status));
    return { repository, transitions, seen };
  }

  it('queues a request once and lets exactly one worker claim it', async () => {
    const { repository, transitions, seen } = setUp();
    await transitions.queue(request);
    await expect(transitions.queue(request)).rejects.toThrow('Conditional write');
    const claims = await Promise.all([transitions.claim('evt_one'), transitions.claim('evt_one'), transitions.claim('evt_one')]);
    expect(claims.filter((claimed) => claimed !== undefined)).toHaveLength(1);
    expect(await repository.get('evt_one')).toMatchObject({ status: 'processing', input: request.input });
    expect(seen).toEqual(['processing']);
  });

  it('records a finished turn, and nothing moves a final row', async () => {
    const { repository, transitions, seen } = setUp();
    await transitions.queue(request);
    await transitions.claim('evt_one');
    await transitions.finishTurn('evt_one', { ...finished, status: 'completed' });
    await transitions.fail('evt_one', 'too late');
    await transitions.finishTurn('evt_one', { ...finished, text: 'again', status: 'failed', error: { message: 'no' } });
    expect(await transitions.failInterrupted('evt_one')).toBe(false);
    expect(await repository.get('evt_one')).toMatchObject({ status: 'completed', result: { text: 'done' } });
    expect(await repository.get('evt_one')).not.toHaveProperty('error');
    expect(seen).toEqual(['processing', 'completed']);
  });

  it('adds each run of a turn to the row\'s usage once: the run that waits, then the continuation that finishes', async () => {
    const { repository, transitions } = setUp();
    const pendingAsyncTools = [{ resultId: 'res_x_0', toolCallId: 'c', toolName: 't', execution: 'external-dispatch' as const, status: 'processing' as const }];
    const { input: _input, ...withoutInput } = request;
    await transitions.waitForAsyncTools({ ...withoutInput, pendingAsyncTools, usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 } });
    await transitions.waitForAsyncTools({ ...withoutInput, pendingAsyncTools, usage: { inputTokens: 20, outputTokens: 3, totalTokens: 23, cachedInputTokens: 5 } });
    // A run that ends waiting again has already added its usage above: finishing it adds nothing.
    await transitions.finishTurn('evt_one', { ...finished, status: 'waiting_async_tools', usage: { inputTokens: 20, outputTokens: 3, totalTokens: 23 } });
    await transitions.finishTurn('evt_one', { ...finished, status: 'completed', usage: { inputTokens: 30, outputTokens: 4, totalTokens: 34 } });
    expect((await repository.get('evt_one'))?.usage).toEqual({ inputTokens: 60, outputTokens: 9, totalTokens: 69, cachedInputTokens: 5 });
  });

  it('creates the row of a turn that starts waiting for async tools, and moves an existing one', async () => {
    const { repository, transitions } = setUp();
    const pendingAsyncTools = [{ resultId: 'res_x_0', toolCallId: 'c', toolName: 't', execution: 'external-dispatch' as const, status: 'processing' as const }];
    const { input: _input, ...withoutInput } = request;
    await transitions.waitForAsyncTools({ ...withoutInput, eventId: 'evt_chat', transport: 'json', pendingAsyncTools });
    expect(await repository.get('evt_chat')).toMatchObject({ status: 'waiting_async_tools', transport: 'json', pendingAsyncTools });
    await transitions.queue(request);
    await transitions.claim('evt_one');
    await transitions.waitForAsyncTools({ ...withoutInput, pendingAsyncTools });
    expect(await repository.get('evt_one')).toMatchObject({ status: 'waiting_async_tools', pendingAsyncTools });
    // A turn that waits again leaves the row as it is; its continuation's end settles it.
    await transitions.finishTurn('evt_one', { ...finished, status: 'waiting_async_tools' });
    expect(await repository.get('evt_one')).toMatchObject({ status: 'waiting_async_tools' });
    await transitions.finishTurn('evt_one', { ...finished, status: 'completed' });
    expect(await repository.get('evt_one')).toMatchObject({ status: 'completed', pendingAsyncTools: [] });
  });

  it('fails a row a stopped process left processing, and only such a row', async () => {
    const { repository, transitions } = setUp();
    await transitions.queue(request);
    expect(await transitions.failInterrupted('evt_one')).toBe(false);
    await transitions.claim('evt_one');
    expect(await transitions.failInterrupted('evt_one')).toBe(true);
    expect(await repository.get('evt_one')).toMatchObject({ status: 'failed', error: 'service restarted while this turn was running' });
  });

  it('cancel moves a queued or waiting row to cancelled once, creates the row of a turn that had none, and leaves final rows alone', async () => {
    const { repository, transitions, seen } = setUp();
    await transitions.queue(request);
    expect(await transitions.cancel({ eventId: 'evt_one' })).toBe(true);
    expect(await transitions.claim('evt_one')).toBeUndefined();
    expect(await transitions.cancel({ eventId: 'evt_one' })).toBe(false);
    expect(await repository.get('evt_one')).toMatchObject({ status: 'cancelled', error: 'cancelled by a cancel request' });

    const turn = { eventId: 'evt_sse', accountId: 'acc', agentId: 'agent', conversationKey: 'k', transport: 'sse' as const, text: 'Half a', messages: [] };
    expect(await transitions.cancel(turn)).toBe(true);
    expect(await repository.get('evt_sse')).toMatchObject({ status: 'cancelled', result: { text: 'Half a' } });
    await transitions.finishTurn('evt_sse', { status: 'completed', ...finished });
    expect((await repository.get('evt_sse'))?.status).toBe('cancelled');
    expect(seen).toEqual(['cancelled', 'cancelled']);
  });

  it('cancelQueued cancels only a request no worker has claimed: a claimed one stays processing for its turn to be stopped', async () => {
    const { repository, transitions } = setUp();
    await transitions.queue(request);
    await transitions.queue({ ...request, eventId: 'evt_two' });
    expect(await transitions.cancelQueued('evt_one')).toBe(true);
    expect(await transitions.claim('evt_one')).toBeUndefined();
    expect(await repository.get('evt_one')).toMatchObject({ status: 'cancelled', error: 'cancelled by a cancel request' });

    expect(await transitions.claim('evt_two')).toBeDefined();
    expect(await transitions.cancelQueued('evt_two')).toBe(false);
    expect((await repository.get('evt_two'))?.status).toBe('processing');
    expect(await transitions.cancelQueued('evt_unknown')).toBe(false);
  });
});
