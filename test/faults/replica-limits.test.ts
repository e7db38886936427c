import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureModel, type FixtureModelServer } from '../../fixtures/model-server/fixture-model-server.js';
import { requestJson, type JsonAnswer } from '../support/json-request.js';
import { type ReplicaSetInSchema, startReplicaSetInSchema } from '../support/replica-set.js';
import { postgresForThisFile } from '../support/test-postgres.js';
import { testAdminSecret } from '../support/test-services.js';
import { waitUntil } from '../support/wait-until.js';

const modelKey = 'sk-fault-replica-limits-0123456789';
const postgres = postgresForThisFile();

/** Turns per account per minute: one token back every 12 s, far longer than a burst of requests takes. */
const turnsPerMinute = 5;
const signupsPerMinute = 4;
const concurrentTurns = 2;
/** The default lease (`HARNESS_LEASE_MS`): a killed replica's slot is freed long before it runs out. */
const leaseMs = 30_000;

const tally = (answers: JsonAnswer[]) => answers.reduce<Record<number, number>>((counts, answer) => ({ ...counts, [answer.status]: (counts[answer.status] ?? 0) + 1 }), {});

describe('fault: per-account limits across three replicas on one PostgreSQL', () => {
  let set: ReplicaSetInSchema;
  let model: FixtureModelServer;
  const replica = (index: number) => set.replicas[index % set.replicas.length]!;
  /** An account made with the admin secret (not counted against sign-ups) and its agent `talker`. */
  const createAccount = async (username: string, through: number) => {
    const created = await requestJson(`${replica(through).accountUrl}/accounts`, { secret: testAdminSecret, body: { username, description: 'limits' } });
    expect(created.status).toBe(201);
    const secret = String(created.body.secret);
    const config = { provider: { openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture', api: 'chat' } } };
    expect((await requestJson(`${replica(through + 1).accountUrl}/accounts/me/agents/talker`, { method: 'PUT', secret, body: { config } })).status).toBeLessThan(300);
    return { secret, accountId: String(created.body.accountId) };
  };
  /** Live concurrent-turn slots of an account, and which replica processes hold them. */
  const slotsOf = (accountId: string) =>
    postgres.admin.query<{ holder: string; leased_until: Date }>(`SELECT holder, leased_until FROM ${set.schema}.harness_slots WHERE pool = 'turns' AND key = $1 AND leased_until > now()`, [accountId]);

  beforeAll(async () => {
    model = await startFixtureModel({ apiKey: modelKey });
    set = await startReplicaSetInSchema(postgres.admin, 3, {
      HARNESS_LIMIT_TURNS_PER_MINUTE: String(turnsPerMinute),
      HARNESS_LIMIT_SIGNUPS_PER_MINUTE: String(signupsPerMinute),
      HARNESS_LIMIT_CONCURRENT_TURNS: String(concurrentTurns),
    });
  }, 120_000);
  afterAll(async () => {
    await set?.close();
    await model?.close();
  }, 120_000);

  it(`an account limited to ${turnsPerMinute} turns a minute gets ${turnsPerMinute}, not ${turnsPerMinute} per replica`, async () => {
    const { secret } = await createAccount('budgeted', 0);
    // 15 /async requests at once, 5 through each replica (background turns take no concurrent slot).
    const answers = await Promise.all(Array.from({ length: 15 }, (_, index) => requestJson(`${replica(index).agentUrl}/agents/talker/async`, { secret, body: { conversationKey: `burst-${index}`, message: 'hello' } })));
    // The chat route spends the same budget, on every replica.
    const chats = await Promise.all([0, 1, 2].map((index) => requestJson(`${replica(index).agentUrl}/agents/talker/chat`, { secret, body: { conversationKey: `chat-${index}`, message: 'hello' } })));
    console.log(`FAULT replica limits: ${turnsPerMinute} turns/min, 15 /async requests over 3 replicas: ${JSON.stringify(tally(answers))}; then a chat on each replica: ${JSON.stringify(tally(chats))}`);
    expect(tally(answers)).toEqual({ 202: turnsPerMinute, 429: 15 - turnsPerMinute });
    expect(chats.map((chat) => chat.status)).toEqual([429, 429, 429]);
    for (const refused of [...answers, ...chats].filter((answer) => answer.status === 429)) {
      expect((refused.body.error as { code: string }).code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });

  it(`sign-ups from one client address: ${signupsPerMinute} a minute across the replicas`, async () => {
    const answers = await Promise.all(Array.from({ length: 9 }, (_, index) => requestJson(`${replica(index).accountUrl}/accounts`, { body: { username: `signup-${index}`, description: 'limits' } })));
    console.log(`FAULT replica limits: ${signupsPerMinute} sign-ups/min, 9 sign-ups over 3 replicas: ${JSON.stringify(tally(answers))}`);
    expect(tally(answers)).toEqual({ 201: signupsPerMinute, 429: 9 - signupsPerMinute });
  });

  it(`concurrent turns are capped at ${concurrentTurns} across replicas, and a killed replica's slot is free again once it is gone, long before its lease`, async () => {
    const { secret, accountId } = await createAccount('concurrent', 1);
    const chat = (through: number, conversationKey: string, message: string) => requestJson(`${replica(through).agentUrl}/agents/talker/chat`, { secret, body: { conversationKey, message } });
    // Two long turns (JSON: a client waits on each), through replicas 0 and 1.
    const dying = chat(0, 'long-0', 'slow: 12000').catch((error: unknown) => ({ status: 0, body: { error: String(error) }, headers: new Headers() }) as JsonAnswer);
    const surviving = chat(1, 'long-1', 'slow: 12000');
    const held = await waitUntil('both turns to hold a slot', async () => {
      const rows = await slotsOf(accountId);
      return rows.length === concurrentTurns ? rows : undefined;
    });
    const third = await chat(2, 'third', 'hello');
    expect(third.status).toBe(429);
    expect(third.body.error).toMatchObject({ code: 'rate_limited', message: `This account already has ${concurrentTurns} turns running; the limit is ${concurrentTurns}.` });

    const victim = replica(0);
    const victimsSlot = held.find((row) => row.holder.includes(`#${victim.child.pid}#`));
    expect(victimsSlot).toBeDefined();
    await set.kill(0);
    const killedAt = (await postgres.admin.query<{ now: Date }>('SELECT now()'))[0]!.now;
    expect((await dying).status).toBe(0);
    // Gone with the replica's presence lock, not when its lease runs out.
    const freed = await waitUntil('the killed replica\'s slot to be freed', async () => ((await slotsOf(accountId)).length < concurrentTurns ? Date.now() : undefined));
    expect(freed - killedAt.getTime()).toBeLessThan(leaseMs);
    const afterKill = await chat(2, 'after-kill', 'hello');
    console.log(`FAULT replica limits: ${concurrentTurns} concurrent turns: third turn through another replica ${third.status}; replica 0 killed holding a slot, free again ${freed - killedAt.getTime()} ms after the kill (lease ${leaseMs} ms, ended by the presence sweep), a new turn then ${afterKill.status}`);
    expect(afterKill.status).toBe(200);
    // The surviving turn still holds its slot: the sweep ended only the dead process's. (The
    // after-kill turn gives its slot back just after its answer: wait for that first.)
    const survivingSlots = await waitUntil('the after-kill turn to give its slot back', async () => {
      const rows = await slotsOf(accountId);
      return rows.length === 1 ? rows : undefined;
    });
    expect(survivingSlots.map((row) => row.holder.includes(`#${replica(1).child.pid}#`))).toEqual([true]);
    expect((await surviving).status).toBe(200);
  }, 90_000);
});
