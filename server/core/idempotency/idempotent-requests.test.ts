import { afterEach, describe, expect, it } from 'vitest';
import { temporaryFolderPerTest } from '../../../test/support/temporary-folder.js';
import { openTestStorage, testStorageBackend } from '../../../test/support/test-storage.js';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError } from '../errors.js';
import type { Storage } from '../storage/table-store.js';
import { IdempotencyKeysRepository } from './idempotency-keys-repository.js';
import type { IdempotencyRecord, IdempotencyRef } from './idempotency-record.js';
import { defaultIdempotencySettings, type IdempotencySettings } from './idempotency-settings.js';
import { IdempotentRequests } from './idempotent-requests.js';

const ref: IdempotencyRef = { accountId: 'acc_1', route: 'async', key: 'order-42' };
const answer = { statusCode: 202, body: '{"eventId":"evt_1"}', contentType: 'application/json; charset=utf-8', eventId: 'evt_1' };

describe('IdempotentRequests', () => {
  const folder = temporaryFolderPerTest();
  const storages: Storage[] = [];
  let clock = new Date('2025-06-01T12:00:00.000Z');
  const advance = (seconds: number) => {
    clock = new Date(clock.getTime() + seconds * 1000);
  };
  afterEach(async () => {
    for (const storage of storages.splice(0)) await storage.close();
  });
  /** A replica: its own storage connection on PostgreSQL (lowdb has one owner process), on the test's clock. */
  const open = async (settings: Partial<IdempotencySettings> = {}) => {
    const storage = await openTestStorage(folder.path);
    storages.push(storage);
    const repository = new IdempotencyKeysRepository(storage.table<IdempotencyRecord>('idempotency-keys'));
    const pauses: number[] = [];
    const requests = new IdempotentRequests({ repository, settings: { ...defaultIdempotencySettings, ...settings }, now: () => clock, pause: async (milliseconds) => pauses.push(milliseconds) });
    return { requests, repository, pauses };
  };

  it('runs the first request, then replays its answer to a retry with the same request', async () => {
    const { requests } = await open();
    const first = await requests.begin(ref, 'hash-a');
    expect(first.kind).toBe('run');
    if (first.kind !== 'run') return;
    await requests.answered(first.claim, answer);
    expect(await requests.begin(ref, 'hash-a')).toEqual({ kind: 'replay-answer', answer });
  });

  it('refuses the key with another request (422), while it runs and once it answered, and changes nothing', async () => {
    const { requests, repository } = await open();
    const first = await requests.begin(ref, 'hash-a');
    await expect(requests.begin(ref, 'hash-b')).rejects.toThrow(IdempotencyKeyReusedError);
    if (first.kind === 'run') await requests.answered(first.claim, answer);
    await expect(requests.begin(ref, 'hash-b')).rejects.toThrow(IdempotencyKeyReusedError);
    expect(await repository.find(ref)).toMatchObject({ state: 'answered', requestHash: 'hash-a', answer });
  });

  it('keeps keys apart per account and per route', async () => {
    const { requests } = await open();
    expect((await requests.begin(ref, 'hash-a')).kind).toBe('run');
    expect((await requests.begin({ ...ref, accountId: 'acc_2' }, 'hash-b')).kind).toBe('run');
    expect((await requests.begin({ ...ref, route: 'chat' }, 'hash-c')).kind).toBe('run');
  });

  it('makes a retry wait for a running first request, then answers 409 idempotency_key_in_use', async () => {
    const { requests, pauses } = await open({ waitMs: 200 });
    await requests.begin(ref, 'hash-a');
    await expect(requests.begin(ref, 'hash-a')).rejects.toThrow(IdempotencyKeyInUseError);
    expect(pauses.length).toBeGreaterThan(0);
    expect(pauses.reduce((sum, pause) => sum + pause, 0)).toBeGreaterThanOrEqual(200);
  });

  it('gives a waiting retry the answer once the first request records it', async () => {
    const { requests, repository } = await open({ waitMs: 10_000 });
    const first = await requests.begin(ref, 'hash-a');
    if (first.kind !== 'run') throw new Error('the first request should run');
    let looks = 0;
    const waiting = new IdempotentRequests({
      repository,
      settings: { ...defaultIdempotencySettings, waitMs: 10_000 },
      now: () => clock,
      // The first request answers while the retry waits.
      pause: async () => {
        looks += 1;
        if (looks === 2) await requests.answered(first.claim, answer);
      },
    });
    expect(await waiting.begin(ref, 'hash-a')).toEqual({ kind: 'replay-answer', answer });
  });

  it('lets go of the key when the request failed: the next one runs', async () => {
    const { requests } = await open();
    const first = await requests.begin(ref, 'hash-a');
    if (first.kind === 'run') await requests.release(first.claim);
    const retry = await requests.begin(ref, 'hash-b');
    expect(retry.kind).toBe('run');
  });

  it('replays a streamed turn', async () => {
    const { requests } = await open();
    const first = await requests.begin({ ...ref, route: 'chat' }, 'hash-a');
    const stream = { agentId: 'helper', conversationKey: 'k', turnId: 'turn_1', eventId: 'evt_1' };
    if (first.kind === 'run') await requests.streamed(first.claim, stream);
    expect(await requests.begin({ ...ref, route: 'chat' }, 'hash-a')).toEqual({ kind: 'replay-stream', stream });
  });

  it('forgets an answer after the TTL and a claim whose holder died after the claim time', async () => {
    const { requests } = await open({ ttlSeconds: 60, claimSeconds: 30 });
    const first = await requests.begin(ref, 'hash-a');
    if (first.kind === 'run') await requests.answered(first.claim, answer);
    advance(61);
    const afterTtl = await requests.begin(ref, 'hash-b');
    expect(afterTtl.kind).toBe('run');
    advance(31);
    const takeover = await requests.begin(ref, 'hash-c');
    expect(takeover.kind).toBe('run');
    // The holder that ran out cannot overwrite the one that took the key over.
    if (afterTtl.kind === 'run') await requests.answered(afterTtl.claim, { ...answer, body: 'late' });
    if (takeover.kind === 'run') await requests.answered(takeover.claim, answer);
    expect(await requests.begin(ref, 'hash-c')).toEqual({ kind: 'replay-answer', answer });
  });

  it('sweeps expired keys and keeps live ones', async () => {
    const { requests, repository } = await open({ ttlSeconds: 60 });
    const old = await requests.begin({ ...ref, key: 'old' }, 'hash-a');
    if (old.kind === 'run') await requests.answered(old.claim, answer);
    advance(45);
    const recent = await requests.begin({ ...ref, key: 'recent' }, 'hash-a');
    if (recent.kind === 'run') await requests.answered(recent.claim, answer);
    advance(30);
    expect(await requests.sweep()).toBe(1);
    expect(await repository.find({ ...ref, key: 'old' })).toBeUndefined();
    expect(await repository.find({ ...ref, key: 'recent' })).toMatchObject({ state: 'answered' });
  });

  it('runs a key once when many requests (on two replicas, on PostgreSQL) claim it at once', async () => {
    const first = await open({ waitMs: 0 });
    const second = testStorageBackend === 'postgres' ? await open({ waitMs: 0 }) : first;
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? first : second).requests.begin(ref, 'hash-a')));
    const ran = outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value.kind === 'run');
    expect(ran).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected').every((outcome) => outcome.reason instanceof IdempotencyKeyInUseError)).toBe(true);
  });
});
