import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureModel, type FixtureModelServer } from '../../fixtures/model-server/fixture-model-server.js';
import { startFixtureSearch, type FixtureSearchServer } from '../../fixtures/search-server/fixture-search-server.js';
import { requestJson } from '../support/json-request.js';
import { startRecordingWorker } from '../support/recording-worker.js';
import { type ReplicaSetInSchema, startReplicaSetInSchema } from '../support/replica-set.js';
import { createAccounts, lostWrites, startWriteLoad, type AcknowledgedWrite } from '../support/write-load.js';
import { postgresForThisFile } from '../support/test-postgres.js';
import { waitUntil } from '../support/wait-until.js';

const modelKey = 'sk-fault-replicas-key-0123456789';
const searchKey = 'tvly-fault-replicas-key-0123456789';
const postgres = postgresForThisFile();

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Runs `work` over `items`, `parallel` at a time. */
async function inParallel<T, R>(items: T[], parallel: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!, index);
      }
    }),
  );
  return results;
}

describe('fault: three replicas on one PostgreSQL', () => {
  let set: ReplicaSetInSchema;
  let model: FixtureModelServer;
  let search: FixtureSearchServer;
  const replica = (index: number) => set.replicas[index % set.replicas.length]!;
  const provider = () => ({ openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture', api: 'chat' } });
  const createAccount = async (username: string, through = 0) => {
    const created = await requestJson(`${replica(through).accountUrl}/accounts`, { body: { username, description: 'replicas' } });
    expect(created.status).toBe(201);
    return String(created.body.secret);
  };
  const putAgent = async (secret: string, agentId: string, config: Record<string, unknown>, through = 0) => {
    const answer = await requestJson(`${replica(through).accountUrl}/accounts/me/agents/${agentId}`, { method: 'PUT', secret, body: { config } });
    expect(answer.status).toBeLessThan(300);
  };
  /** The replica whose process holds the lease of a background job (its owner names its pid). */
  const holderOf = async (key: string): Promise<number | undefined> => {
    const [row] = await postgres.admin.query<{ owner: string | null }>(`SELECT owner FROM ${set.schema}.harness_jobs WHERE queue = 'background' AND key = $1 AND leased_until > now()`, [key]);
    if (!row?.owner) return undefined;
    const index = set.replicas.findIndex((candidate) => row.owner!.includes(`#${candidate.child.pid}#`));
    return index >= 0 ? index : undefined;
  };

  beforeAll(async () => {
    model = await startFixtureModel({ apiKey: modelKey });
    search = await startFixtureSearch({ apiKey: searchKey });
    // The file signs up more accounts from one address than the default 10 a minute allows.
    set = await startReplicaSetInSchema(postgres.admin, 3, { ALPHA_BASE_URL: search.baseURL, HARNESS_LIMIT_SIGNUPS_PER_MINUTE: '1000' });
  }, 120_000);
  afterAll(async () => {
    await set?.close();
    await model?.close();
    await search?.close();
  }, 120_000);

  it('100 sibling completions spread over three replicas, 20 rounds: exactly one continuation each', async () => {
    const worker = await startRecordingWorker();
    try {
      const secret = await createAccount('racer', 0);
      // Written through another replica than the one that serves the turns: configs are shared and readable by all.
      await putAgent(secret, 'fanout', { provider: provider(), tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: replica(0).agentUrl, completionBearerToken: secret, workerUrl: worker.dispatchUrl } } }, 1);
      const continuations: number[] = [];
      const modelCalls: number[] = [];
      for (let round = 0; round < 20; round += 1) {
        worker.dispatches.length = 0;
        const answer = await requestJson(`${replica(round).agentUrl}/agents/fanout/chat`, { secret, body: { conversationKey: `round-${round}`, message: 'call x100 test_external_async {}' } });
        expect(worker.dispatches).toHaveLength(100);
        const callsBefore = model.callCount();
        const results = await Promise.all(
          worker.dispatches.map(async (dispatch, index) => {
            const through = new URL(dispatch.completeUrl);
            const target = new URL(replica(index).agentUrl);
            through.host = target.host;
            const response = await fetch(through, { method: 'POST', headers: { ...dispatch.completionHeaders, 'content-type': 'application/json' }, body: JSON.stringify({ status: 'completed', response: { round } }) });
            return (await response.json()) as { continuation?: string };
          }),
        );
        continuations.push(results.filter((result) => result.continuation === 'accepted').length);
        const statusPath = new URL(String(answer.body.statusUrl)).pathname;
        await waitUntil('the round to complete', async () => ((await requestJson(`${replica(round + 1).agentUrl}${statusPath}`, { secret })).body.status === 'completed' ? true : undefined), { timeoutMs: 60_000, intervalMs: 100 });
        // A continuation that ran twice would call the model twice; give a late duplicate time to show.
        await sleep(200);
        modelCalls.push(model.callCount() - callsBefore);
      }
      console.log(`FAULT replicas: 100 sibling completions over 3 replicas x20: continuations per round ${JSON.stringify(continuations)}, continuation model calls per round ${JSON.stringify(modelCalls)}`);
      expect(continuations).toEqual(Array(20).fill(1));
      expect(modelCalls).toEqual(Array(20).fill(1));
    } finally {
      await worker.close();
    }
    // 100 racing settlements of one group on PostgreSQL queue on the group's lock: ~1.5 s a round on 2 cores, the turn and its continuation included.
  }, 600_000);

  it('an approval asked through one replica and answered through two others at once: the tool runs once', async () => {
    const secret = await createAccount('careful', 1);
    await putAgent(secret, 'helper', { provider: provider(), tools: { alphaSearch: { apiKey: searchKey, needsApproval: true, maxResults: 1 } } }, 2);
    const rounds = 10;
    const searchesPerRound: number[] = [];
    const answers: string[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const key = `approval-${round}`;
      const asked = await requestJson(`${replica(0).agentUrl}/agents/helper/chat`, { secret, body: { conversationKey: key, message: `search: round ${round}` } });
      const pending = asked.body.pendingApprovals as { approvalId: string }[];
      expect(pending).toHaveLength(1);
      const before = search.requests().length;
      const answer = { conversationKey: key, message: { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: pending[0]!.approvalId, approved: true }] } };
      const both = await Promise.all([1, 2].map((index) => requestJson(`${replica(index).agentUrl}/agents/helper/chat`, { secret, body: answer })));
      answers.push(both.map((one) => one.status).sort().join('+'));
      searchesPerRound.push(search.requests().length - before);
    }
    console.log(`FAULT replicas: approval asked on one replica, answered on two at once x${rounds}: tool runs per round ${JSON.stringify(searchesPerRound)}, answers ${JSON.stringify(answers)}`);
    expect(searchesPerRound).toEqual(Array(rounds).fill(1));
    expect(answers).toEqual(Array(rounds).fill('200+409'));
  });

  it('a replica killed while it runs an /async request: another takes the request over once it is gone (before its lease runs out), and it completes once', async () => {
    const secret = await createAccount('sleeper', 2);
    await putAgent(secret, 'slow', { provider: provider() }, 0);
    const submitted = await requestJson(`${replica(0).agentUrl}/agents/slow/async`, { secret, body: { conversationKey: 'sleepy', message: 'slow: 4000' } });
    expect(submitted.status).toBe(202);
    const eventId = String(submitted.body.eventId);
    const holder = await waitUntil('a replica to claim the request', () => holderOf(`async-request:${eventId}`), { timeoutMs: 20_000, intervalMs: 100 });
    await waitUntil('the model call to start', async () => (model.calls().some((recorded) => JSON.stringify(recorded.body).includes('slow: 4000')) ? true : undefined), { timeoutMs: 20_000, intervalMs: 100 });
    const killedAt = Date.now();
    await set.kill(holder);
    const survivor = replica(holder + 1);
    const status = await waitUntil('the request to end', async () => {
      const answer = await requestJson(`${survivor.agentUrl}/status/${eventId}`, { secret });
      return answer.body.status === 'completed' || answer.body.status === 'failed' ? answer.body : undefined;
    }, { timeoutMs: 60_000, intervalMs: 100 });
    const tookOverMs = Date.now() - killedAt;
    const conversation = await requestJson(`${survivor.agentUrl}/agents/slow/conversations/sleepy`, { secret });
    const messages = conversation.body.messages as unknown[];
    console.log(`FAULT replicas: replica ${holder} killed holding an /async request: ended ${String(status.status)} ${tookOverMs} ms after the kill (a 4 s model call; the 30 s lease ended by the presence sweep), conversation holds ${messages.length} messages`);
    await set.restart(holder);
    expect(status.status).toBe('completed');
    expect(messages).toHaveLength(2);
    // Taken over when the process was gone, not when its 30 s lease ran out.
    expect(tookOverMs).toBeLessThan(30_000);
  });

  it('a replica killed while it runs a cron run: another finishes it, and the slot has one run', async () => {
    const secret = await createAccount('ticker', 1);
    await putAgent(secret, 'ticker', { provider: provider() }, 1);
    // at() slots are minutes: one a few seconds ahead in the current minute fires at once.
    const fireAt = new Date(Date.now() + 2_000);
    const created = await requestJson(`${replica(1).accountUrl}/accounts/me/cron-jobs`, { secret, body: { name: 'once', agentId: 'ticker', conversationKey: 'tick', prompt: 'slow: 4001', scheduleExpression: `at(${fireAt.toISOString().slice(0, 19)})` } });
    expect(created.status).toBe(201);
    const cronJobId = String(created.body.cronJobId);
    const runsOf = async () => ((await requestJson(`${replica(0).accountUrl}/accounts/me/cron-jobs/${cronJobId}/runs`, { secret })).body.runs ?? []) as { eventId: string; status: string }[];
    const [run] = await waitUntil('the slot to fire', async () => {
      const runs = await runsOf();
      return runs.length > 0 ? runs : undefined;
    }, { timeoutMs: 30_000, intervalMs: 100 });
    const holder = await waitUntil('a replica to claim the run', () => holderOf(`async-request:${run!.eventId}`), { timeoutMs: 20_000, intervalMs: 100 });
    await waitUntil('the model call to start', async () => (model.calls().some((recorded) => JSON.stringify(recorded.body).includes('slow: 4001')) ? true : undefined), { timeoutMs: 20_000, intervalMs: 100 });
    await set.kill(holder);
    const runs = await waitUntil('the run to end', async () => {
      const current = await runsOf();
      return current.every((one) => one.status !== 'running') ? current : undefined;
    }, { timeoutMs: 60_000, intervalMs: 100 });
    console.log(`FAULT replicas: replica ${holder} killed holding a cron run: ${runs.length} run(s) for the slot, ${JSON.stringify(runs.map((one) => one.status))}`);
    await set.restart(holder);
    expect(runs.map((one) => one.status)).toEqual(['completed']);
  });

  it('1,000 cron jobs due together on three replicas: none lost, none fired twice', async () => {
    const accounts = 10;
    const perAccount = 100;
    const secrets: string[] = [];
    for (let index = 0; index < accounts; index += 1) {
      const secret = await createAccount(`burst${index}`, index);
      await putAgent(secret, 'ticker', { provider: provider() }, index + 1);
      secrets.push(secret);
    }
    // Created through all three replicas; each replica learns of the others' jobs from storage.
    // at() slots are minutes: the next minute that leaves time to create them all.
    const minute = 60_000;
    const fireAt = new Date(Math.ceil((Date.now() + 25_000) / minute) * minute);
    const expression = `at(${fireAt.toISOString().slice(0, 19)})`;
    const jobs = Array.from({ length: accounts * perAccount }, (_, index) => ({ secret: secrets[index % accounts]!, index }));
    const ids = await inParallel(jobs, 12, async ({ secret, index }) => {
      const created = await requestJson(`${replica(index).accountUrl}/accounts/me/cron-jobs`, { secret, body: { name: `burst-${index}`, agentId: 'ticker', conversationKey: `burst-${index}`, prompt: 'tick', scheduleExpression: expression } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return String(created.body.cronJobId);
    });
    expect(Date.now()).toBeLessThan(fireAt.getTime());
    await sleep(Math.max(0, fireAt.getTime() - Date.now()));
    // Every at() job is `completed` once its slot was claimed.
    await waitUntil('every slot to be claimed', async () => {
      for (const secret of secrets) {
        const listed = (await requestJson(`${replica(0).accountUrl}/accounts/me/cron-jobs`, { secret })).body.cronJobs as { status: string }[];
        if (listed.some((job) => job.status !== 'completed')) return undefined;
      }
      return true;
    }, { timeoutMs: 120_000, intervalMs: 100 });
    const runCounts = await inParallel(ids, 16, async (id, index) => {
      const runs = (await requestJson(`${replica(index).accountUrl}/accounts/me/cron-jobs/${id}/runs`, { secret: jobs[index]!.secret })).body.runs as unknown[];
      return runs.length;
    });
    const lost = runCounts.filter((count) => count === 0).length;
    const duplicates = runCounts.reduce((sum, count) => sum + Math.max(0, count - 1), 0);
    console.log(`FAULT replicas: ${ids.length} cron jobs due together on 3 replicas: ${lost} lost, ${duplicates} duplicate fires`);
    expect(lost).toBe(0);
    expect(duplicates).toBe(0);
  });

  it('kill -9 one of three replicas under a write load, 10 cycles: no acknowledged write lost', async () => {
    const secrets = await createAccounts(replica(0).accountUrl, 'writers', 3);
    const acknowledged: AcknowledgedWrite[] = [];
    for (let cycle = 0; cycle < 10; cycle += 1) {
      const victim = cycle % 3;
      // Writers on the victim and on a survivor; the victim dies mid-load.
      const loads = [startWriteLoad(replica(victim).accountUrl, secrets, 2, `c${cycle}v`), startWriteLoad(replica(victim + 1).accountUrl, secrets, 1, `c${cycle}s`)];
      const target = 20 + ((cycle * 37) % 60);
      while (loads[0]!.acknowledged.length < target) await sleep(2);
      await set.kill(victim);
      await Promise.all(loads.map((load) => load.stop()));
      for (const load of loads) acknowledged.push(...load.acknowledged);
      await set.restart(victim);
    }
    const lost = await lostWrites(replica(2).accountUrl, secrets, acknowledged);
    console.log(`FAULT replicas: kill -9 one of 3 replicas under load, 10 cycles: ${acknowledged.length} acknowledged writes, ${lost.length} lost`);
    expect(lost).toEqual([]);
  });
});
