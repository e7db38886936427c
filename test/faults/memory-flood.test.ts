import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { serve } from '../../server/serve.js';
import { temporaryFolder } from '../support/temporary-folder.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const requestsPerFlood = 20_000;
const concurrency = 32;

function randomAccountId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return `acc_${Array.from(randomBytes(20), (byte) => alphabet[byte % alphabet.length]).join('')}`;
}

/** A well-formed account secret for an account that does not exist: it reaches the lookup. */
function bogusSecret(): string {
  return `hsk_${randomAccountId()}_${randomBytes(32).toString('base64url')}`;
}

async function flood(count: number, request: () => Promise<Response>): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let sent = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent < count) {
        sent += 1;
        const response = await request();
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

function settledMemory(): { heapMiB: number; rssMiB: number } {
  for (let round = 0; round < 4; round += 1) collectGarbage();
  const usage = process.memoryUsage();
  return { heapMiB: usage.heapUsed / 2 ** 20, rssMiB: usage.rss / 2 ** 20 };
}

describe('fault: a flood of requests from strangers', () => {
  it('does not grow memory: 20,000 bogus bearer secrets and 20,000 webhooks to random account ids', async () => {
    const folder = await temporaryFolder();
    const services = await serve({ dataDir: folder.path, accountPort: 0, agentPort: 0, logger: false, nats: { mode: 'disabled' } });
    try {
      const bogusBearer = () => fetch(`${services.accountUrl}/accounts/me`, { headers: { authorization: `Bearer ${bogusSecret()}` } });
      const webhookToNowhere = () => fetch(`${services.agentUrl}/webhooks/${randomAccountId()}/support/telegram`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"update_id":1}' });
      // Warm up (JIT, connection pools, lazily built routes) before the baseline.
      await flood(2_000, bogusBearer);
      await flood(2_000, webhookToNowhere);
      const before = settledMemory();
      const bearerStatuses = await flood(requestsPerFlood, bogusBearer);
      const webhookStatuses = await flood(requestsPerFlood, webhookToNowhere);
      const after = settledMemory();
      const heapGrowth = after.heapMiB - before.heapMiB;
      console.log(
        `FAULT memory flood: ${requestsPerFlood} bogus bearers (${JSON.stringify(Object.fromEntries(bearerStatuses))}) and ${requestsPerFlood} webhooks to random accounts (${JSON.stringify(Object.fromEntries(webhookStatuses))}); ` +
          `heap after GC ${before.heapMiB.toFixed(1)} -> ${after.heapMiB.toFixed(1)} MiB (${heapGrowth >= 0 ? '+' : ''}${heapGrowth.toFixed(1)}), RSS ${before.rssMiB.toFixed(0)} -> ${after.rssMiB.toFixed(0)} MiB`,
      );
      expect([...bearerStatuses.keys()].every((status) => status === 401 || status === 429)).toBe(true);
      expect([...webhookStatuses.keys()].every((status) => status === 404 || status === 429)).toBe(true);
      // Generous: what the misses used to keep was ~80 MiB for these floods.
      expect(heapGrowth).toBeLessThan(12);
    } finally {
      await services.close();
      await folder.remove();
    }
  });
});
