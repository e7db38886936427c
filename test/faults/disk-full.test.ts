import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { fillUp, mountSmallFilesystem } from '../support/small-filesystem.js';
import { createAccounts, lostWrites, type AcknowledgedWrite } from '../support/write-load.js';

async function putAgent(accountUrl: string, secret: string, agentId: string, system: string): Promise<number> {
  const response = await fetch(`${accountUrl}/accounts/me/agents/${agentId}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
    body: JSON.stringify({ config: { system } }),
  });
  await response.text();
  return response.status;
}

async function agentIds(accountUrl: string, secret: string): Promise<Set<string>> {
  const response = await fetch(`${accountUrl}/accounts/me/agents`, { headers: { authorization: `Bearer ${secret}` } });
  return new Set(((await response.json()) as { agents: { agentId: string }[] }).agents.map((agent) => agent.agentId));
}

describe('fault: the disk fills up under writes (a 4 MiB tmpfs), then space comes back', () => {
  it('loses no acknowledged write, shows no failed one, and the service starts again', async () => {
    const disk = await mountSmallFilesystem('4m');
    const dataDir = join(disk.path, 'data');
    let service: ServiceProcess | undefined;
    try {
      service = await startServiceProcess(dataDir);
      const [secret] = await createAccounts(service.accountUrl, 'disk-full', 1);
      const acknowledged: AcknowledgedWrite[] = [];
      const failed: string[] = [];
      const write = async (agentId: string) => {
        const system = `written as ${agentId}`;
        if ((await putAgent(service!.accountUrl, secret!, agentId, system)) === 201) acknowledged.push({ secret: secret!, agentId, system });
        else failed.push(agentId);
      };
      for (let index = 0; index < 20; index += 1) await write(`before-${index}`);

      const filler = await fillUp(disk.path);
      // Fill the rest of the segment's last page, then fail: a short write, then ENOSPC.
      for (let index = 0; index < 200 && failed.length < 10; index += 1) await write(`full-${index}`);
      const visibleWhileFull = [...(await agentIds(service.accountUrl, secret!))].filter((agentId) => failed.includes(agentId));
      await filler.free();
      for (let index = 0; index < 20; index += 1) await write(`after-${index}`);
      const failedAfterFreeing = failed.filter((agentId) => agentId.startsWith('after-'));

      await service.killHard();
      service = await startServiceProcess(dataDir);
      const lost = await lostWrites(service.accountUrl, [secret!], acknowledged);
      const visibleAfterRestart = [...(await agentIds(service.accountUrl, secret!))].filter((agentId) => failed.includes(agentId));
      await service.stop();
      service = undefined;

      console.log(
        `FAULT disk full (4 MiB tmpfs, filled with ${(filler.bytes / 1024).toFixed(0)} KiB): ${acknowledged.length} acknowledged writes, ${failed.length} failed while full; ` +
          `${lost.length} acknowledged lost, ${visibleWhileFull.length} failed visible while full, ${visibleAfterRestart.length} failed visible after kill -9 and restart, ${failedAfterFreeing.length} failed after freeing space; the service started again`,
      );
      expect(failed.length).toBeGreaterThan(0);
      expect(failedAfterFreeing).toEqual([]);
      expect(lost).toEqual([]);
      expect(visibleWhileFull).toEqual([]);
      expect(visibleAfterRestart).toEqual([]);
    } finally {
      await service?.killHard();
      await disk.remove();
    }
  });
});
