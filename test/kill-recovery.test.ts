import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServiceProcess } from './support/service-process.js';
import { temporaryFolder } from './support/temporary-folder.js';
import { createAccounts, lostWrites, startWriteLoad, unparsableFiles } from './support/write-load.js';

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
    const secrets = await createAccounts(service.accountUrl, 'load', 4);
    const load = startWriteLoad(service.accountUrl, secrets, 3, 'agent');
    while (load.acknowledged.length < 150) await new Promise((resolve) => setTimeout(resolve, 5));
    await service.killHard();
    await load.stop();
    const files = await unparsableFiles(folder.path);
    expect(files.files).toBeGreaterThan(0);
    expect(files.unparsable).toEqual([]);
    service = await startServiceProcess(folder.path);
    try {
      const lost = await lostWrites(service.accountUrl, secrets, load.acknowledged);
      console.log(`kill -9 under load: ${load.acknowledged.length} acknowledged writes, ${lost.length} lost`);
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
