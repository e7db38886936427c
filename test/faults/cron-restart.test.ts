import { describe, expect, it } from 'vitest';
import { startFixtureModel } from '../../fixtures/model-server/fixture-model-server.js';
import { requestJson } from '../support/json-request.js';
import { startServiceProcess } from '../support/service-process.js';
import { temporaryFolder } from '../support/temporary-folder.js';

const modelKey = 'sk-fault-cron-key-0123456789';
const jobs = 10;

async function sleepUntil(time: number): Promise<void> {
  const wait = time - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

interface Run {
  scheduledFor: string;
  status: string;
  catchUp?: { missedSlots: number; lastMissedSlot: string };
}

describe('fault: restart across a cron slot (real clock, kill -9)', () => {
  it('loses no fire and fires no slot twice', async () => {
    const folder = await temporaryFolder();
    const model = await startFixtureModel({ apiKey: modelKey });
    let service = await startServiceProcess(folder.path);
    try {
      const call = async (path: string, secret?: string, body?: unknown, method?: string) => (await requestJson(`${service.accountUrl}${path}`, { method, secret, body })).body;
      const { secret } = (await call('/accounts', undefined, { username: 'scheduler', description: 'x' })) as { secret: string };
      await call('/accounts/me/agents/ticker', secret, { config: { provider: { openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture', api: 'chat' } } } }, 'PUT');
      // Leave at least 15 s before the first slot, so the kill below lands before it.
      const minute = 60_000;
      let firstSlot = Math.ceil(Date.now() / minute) * minute;
      if (firstSlot - Date.now() < 15_000) firstSlot += minute;
      const ids: string[] = [];
      for (let index = 0; index < jobs; index += 1) {
        const job = await call('/accounts/me/cron-jobs', secret, { name: `tick-${index}`, agentId: 'ticker', conversationKey: `tick-${index}`, prompt: 'tick', scheduleExpression: 'cron(* * * * ? *)' });
        ids.push(String(job.cronJobId));
      }
      // Down across the first slot: killed 5 s before it, back 3 s after it (one catch-up fire).
      await sleepUntil(firstSlot - 5_000);
      await service.killHard();
      await sleepUntil(firstSlot + 3_000);
      service = await startServiceProcess(folder.path);
      // Killed right after the second slot fired, back within the same minute (no second fire).
      const secondSlot = firstSlot + minute;
      await sleepUntil(secondSlot + 2_000);
      await service.killHard();
      service = await startServiceProcess(folder.path);
      await sleepUntil(secondSlot + 8_000);
      let lost = 0;
      let duplicates = 0;
      for (const id of ids) {
        const { runs } = (await call(`/accounts/me/cron-jobs/${id}/runs`, secret)) as { runs: Run[] };
        const slots = [new Date(firstSlot).toISOString(), new Date(secondSlot).toISOString()];
        for (const slot of slots) {
          const covering = runs.filter((run) => run.scheduledFor === slot || run.catchUp?.lastMissedSlot === slot);
          if (covering.length === 0) lost += 1;
          if (covering.length > 1) duplicates += covering.length - 1;
        }
      }
      console.log(`FAULT restart across a cron slot: ${jobs} jobs x 2 slots, ${lost} lost fires, ${duplicates} duplicate fires`);
      expect(lost).toBe(0);
      expect(duplicates).toBe(0);
    } finally {
      await service.stop();
      await model.close();
      await folder.remove();
    }
  });
});
