import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface AcknowledgedWrite {
  secret: string;
  agentId: string;
  system: string;
}

async function putAgent(accountUrl: string, secret: string, agentId: string, system: string): Promise<number> {
  const response = await fetch(`${accountUrl}/accounts/me/agents/${agentId}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
    body: JSON.stringify({ config: { system, tools: { alphaSearch: { apiKey: `key-${agentId}-0123456789` } } } }),
  });
  await response.text();
  return response.status;
}

/**
 * Concurrent agent writes against a service until `stop()` says so; records every write the
 * service acknowledged with a 2xx. Writers stop quietly when the connection dies.
 */
export function startWriteLoad(accountUrl: string, secrets: string[], writersPerAccount: number, prefix: string) {
  const acknowledged: AcknowledgedWrite[] = [];
  let sequence = 0;
  let stopped = false;
  const writer = async (secret: string) => {
    while (!stopped) {
      sequence += 1;
      const agentId = `${prefix}-${sequence}`;
      const system = `written ${prefix} ${sequence}`;
      try {
        if ((await putAgent(accountUrl, secret, agentId, system)) === 201) acknowledged.push({ secret, agentId, system });
      } catch {
        return;
      }
    }
  };
  const writers = secrets.flatMap((secret) => Array.from({ length: writersPerAccount }, () => writer(secret)));
  return {
    acknowledged,
    stop: async () => {
      stopped = true;
      await Promise.all(writers);
    },
  };
}

/** The acknowledged writes that the service no longer has (by listing each account's agents). */
export async function lostWrites(accountUrl: string, secrets: string[], writes: AcknowledgedWrite[]): Promise<AcknowledgedWrite[]> {
  const found = new Map<string, string>();
  for (const secret of secrets) {
    const response = await fetch(`${accountUrl}/accounts/me/agents`, { headers: { authorization: `Bearer ${secret}` } });
    const body = (await response.json()) as { agents: { agentId: string; config: { system: string } }[] };
    for (const agent of body.agents) found.set(`${secret}/${agent.agentId}`, agent.config.system);
  }
  return writes.filter((write) => found.get(`${write.secret}/${write.agentId}`) !== write.system);
}

/** JSON data files under a folder that do not parse. */
/**
 * Data files that do not parse: partition files must be whole JSON documents; write-ahead log
 * segments must be JSON lines, except a torn last line (an append the kill cut short, which
 * was never acknowledged).
 */
export async function unparsableFiles(folder: string): Promise<{ files: number; unparsable: string[] }> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile() && (entry.name.endsWith('.json') || entry.name.endsWith('.log'))).map((entry) => join(entry.parentPath, entry.name));
  const unparsable: string[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    try {
      if (file.endsWith('.json')) JSON.parse(text);
      else for (const line of text.split('\n').slice(0, -1)) JSON.parse(line);
    } catch {
      unparsable.push(file);
    }
  }
  return { files: files.length, unparsable };
}

export async function createAccounts(accountUrl: string, prefix: string, count: number): Promise<string[]> {
  const secrets: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const response = await fetch(`${accountUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: `${prefix}-${index}`, description: 'load' }) });
    secrets.push(((await response.json()) as { secret: string }).secret);
  }
  return secrets;
}
