import { describe, expect, it } from 'vitest';
import { requestUiMessageStream } from '../cli/chat/ui-stream-reader.js';
import { startFixtureModel } from '../fixtures/model-server/fixture-model-server.js';
import { startServiceProcess } from './support/service-process.js';
import { temporaryFolderPerTest } from './support/temporary-folder.js';
import { createAccounts, lostWrites, startWriteLoad, unparsableFiles } from './support/write-load.js';

/**
 * For the tests about what a killed process leaves in its data folder (the write-ahead log,
 * partition files) and the lock that keeps a second process off it: lowdb files whatever the
 * test storage switch says, since on PostgreSQL neither exists.
 */
const onLowdb = { storage: 'lowdb' } as const;

describe('a server killed with SIGKILL in the middle of a write load', () => {
  const folder = temporaryFolderPerTest();

  it('keeps every write it acknowledged, and every file still parses', async () => {
    let service = await startServiceProcess(folder.path, {}, onLowdb);
    const secrets = await createAccounts(service.accountUrl, 'load', 4);
    const load = startWriteLoad(service.accountUrl, secrets, 3, 'agent');
    while (load.acknowledged.length < 150) await new Promise((resolve) => setTimeout(resolve, 5));
    await service.killHard();
    await load.stop();
    const files = await unparsableFiles(folder.path);
    expect(files.files).toBeGreaterThan(0);
    expect(files.unparsable).toEqual([]);
    service = await startServiceProcess(folder.path, {}, onLowdb);
    try {
      const lost = await lostWrites(service.accountUrl, secrets, load.acknowledged);
      console.log(`kill -9 under load: ${load.acknowledged.length} acknowledged writes, ${lost.length} lost`);
      expect(lost).toEqual([]);
    } finally {
      await service.stop();
    }
  });

  it('an SSE turn killed before its finish chunk stored nothing of that turn, so resending the message makes no duplicate', async () => {
    const model = await startFixtureModel({ apiKey: 'sk-kill-model-0123456789', chunkDelayMs: 20 });
    let service = await startServiceProcess(folder.path);
    try {
      const [secret] = await createAccounts(service.accountUrl, 'streamer', 1);
      await fetch(`${service.accountUrl}/accounts/me/agents/talker`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
        body: JSON.stringify({ config: { provider: { openai: { apiKey: 'sk-kill-model-0123456789', baseURL: model.baseURL, model: 'fixture', api: 'chat' } } } }),
      });
      const chunks = await requestUiMessageStream({ url: `${service.agentUrl}/agents/talker/chat`, secret, body: { conversationKey: 'cut-short', message: 'long: 500' } });
      for await (const chunk of chunks) if (chunk.type === 'text-delta') break;
      await service.killHard();
      service = await startServiceProcess(folder.path);
      const conversationUrl = `${service.agentUrl}/agents/talker/conversations/cut-short`;
      expect((await fetch(conversationUrl, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(404);
      const resent = await requestUiMessageStream({ url: `${service.agentUrl}/agents/talker/chat`, secret, body: { conversationKey: 'cut-short', message: 'long: 5' } });
      let last: { type: string } | undefined;
      for await (const chunk of resent) last = chunk;
      expect(last?.type).toBe('finish');
      const stored = (await (await fetch(conversationUrl, { headers: { authorization: `Bearer ${secret}` } })).json()) as { messages: Array<{ role: string; content: unknown }> };
      expect(stored.messages.filter((message) => message.role === 'user')).toEqual([{ role: 'user', content: 'long: 5' }]);
    } finally {
      await service.stop();
      await model.close();
    }
  });

  it('refuses a second service process on the same data folder', async () => {
    const service = await startServiceProcess(folder.path, {}, onLowdb);
    try {
      await expect(startServiceProcess(folder.path, {}, onLowdb)).rejects.toThrow(/in use by another harness process \(pid \d+\)/);
    } finally {
      await service.stop();
    }
  });
});
