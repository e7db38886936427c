import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServiceProcess } from './support/service-process.js';
import { temporaryFolder } from './support/temporary-folder.js';

async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function allDataFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.json')).map((entry) => join(entry.parentPath, entry.name));
}

describe('a server killed with SIGKILL in the middle of a write load', () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  beforeEach(async () => {
    folder = await temporaryFolder();
  });
  afterEach(async () => {
    await folder.remove();
  });

  it('keeps every write it acknowledged, and every file still parses', async () => {
    let service = await startServiceProcess(folder.path);
    const accounts: { secret: string }[] = [];
    for (let index = 0; index < 4; index += 1) {
      const created = await json(`${service.accountUrl}/accounts`, { method: 'POST', body: JSON.stringify({ username: `load-${index}`, description: 'load' }) });
      expect(created.status).toBe(201);
      accounts.push({ secret: String(created.body.secret) });
    }
    const acknowledged: { secret: string; agentId: string; system: string }[] = [];
    let sequence = 0;
    let killed = false;
    const writer = async (account: { secret: string }) => {
      while (!killed) {
        sequence += 1;
        const agentId = `agent-${sequence}`;
        const system = `written ${sequence}`;
        try {
          const response = await json(`${service.accountUrl}/accounts/me/agents/${agentId}`, {
            method: 'PUT',
            headers: { authorization: `Bearer ${account.secret}` },
            body: JSON.stringify({ config: { system, tools: { alphaSearch: { apiKey: `key-${sequence}-0123456789` } } } }),
          });
          if (response.status === 201) acknowledged.push({ secret: account.secret, agentId, system });
        } catch {
          return; // the connection died with the server
        }
      }
    };
    const writers = accounts.flatMap((account) => [writer(account), writer(account), writer(account)]);
    while (acknowledged.length < 150) await new Promise((resolve) => setTimeout(resolve, 5));
    killed = true;
    await service.killHard();
    await Promise.all(writers);

    const files = await allDataFiles(folder.path);
    const unparsable: string[] = [];
    for (const file of files) {
      try {
        JSON.parse(await readFile(file, 'utf8'));
      } catch {
        unparsable.push(file);
      }
    }
    expect(files.length).toBeGreaterThan(4);
    expect(unparsable).toEqual([]);

    service = await startServiceProcess(folder.path);
    try {
      const found = new Map<string, string>();
      for (const account of accounts) {
        const list = await json(`${service.accountUrl}/accounts/me/agents`, { headers: { authorization: `Bearer ${account.secret}` } });
        for (const agent of list.body.agents as { agentId: string; config: { system: string } }[]) found.set(`${account.secret}/${agent.agentId}`, agent.config.system);
      }
      const lost = acknowledged.filter((write) => found.get(`${write.secret}/${write.agentId}`) !== write.system);
      console.log(`kill -9 under load: ${acknowledged.length} acknowledged writes, ${lost.length} lost`);
      expect(lost).toEqual([]);
    } finally {
      await service.stop();
    }
  });

  it('refuses a second service process on the same data folder', async () => {
    const service = await startServiceProcess(folder.path);
    try {
      await expect(startServiceProcess(folder.path)).rejects.toThrow(/in use by another harness process \(pid \d+\)/);
    } finally {
      await service.stop();
    }
  });
});
