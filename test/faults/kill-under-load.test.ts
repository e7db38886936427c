import { describe, expect, it } from 'vitest';
import { startServiceProcess } from '../support/service-process.js';
import { temporaryFolder } from '../support/temporary-folder.js';
import { createAccounts, lostWrites, startWriteLoad, unparsableFiles, type AcknowledgedWrite } from '../support/write-load.js';

describe('fault: SIGKILL under a concurrent write load, 20 cycles', () => {
  it('loses no acknowledged write and leaves no unparsable file', async () => {
    const folder = await temporaryFolder();
    try {
      let service = await startServiceProcess(folder.path);
      const secrets = await createAccounts(service.accountUrl, 'fault', 4);
      const acknowledged: AcknowledgedWrite[] = [];
      let unparsable = 0;
      for (let cycle = 0; cycle < 20; cycle += 1) {
        const load = startWriteLoad(service.accountUrl, secrets, 3, `cycle${cycle}`);
        const target = 20 + ((cycle * 37) % 80);
        while (load.acknowledged.length < target) await new Promise((resolve) => setTimeout(resolve, 2));
        await service.killHard();
        await load.stop();
        acknowledged.push(...load.acknowledged);
        unparsable += (await unparsableFiles(folder.path)).unparsable.length;
        service = await startServiceProcess(folder.path);
      }
      const lost = await lostWrites(service.accountUrl, secrets, acknowledged);
      await service.stop();
      console.log(`FAULT kill -9 under load: 20 cycles, ${acknowledged.length} acknowledged writes, ${lost.length} lost, ${unparsable} unparsable files`);
      expect(lost).toEqual([]);
      expect(unparsable).toBe(0);
    } finally {
      await folder.remove();
    }
  });
});
