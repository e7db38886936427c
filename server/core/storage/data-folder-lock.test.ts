import { execa, type ResultPromise } from 'execa';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { temporaryFolderPerTest } from '../../../test/support/temporary-folder.js';
import { DataFolderLockedError, lockDataFolder } from './data-folder-lock.js';

describe('lockDataFolder', () => {
  const folder = temporaryFolderPerTest();

  it('refuses a second owner while the first holds the folder, and allows one after release', async () => {
    const lock = await lockDataFolder(folder.path);
    await expect(lockDataFolder(folder.path)).rejects.toBeInstanceOf(DataFolderLockedError);
    await lock.release();
    const again = await lockDataFolder(folder.path);
    await again.release();
  });

  it('refuses when another live process holds the lock, naming it', async () => {
    const child = execa('node', ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await writeFile(join(folder.path, 'service.lock'), JSON.stringify({ pid: child.pid }));
      await expect(lockDataFolder(folder.path)).rejects.toThrow(`in use by another harness process (pid ${child.pid})`);
    } finally {
      child.kill('SIGKILL');
      await child.catch(() => undefined);
    }
  });

  it('takes over a stale lock left by a killed process', async () => {
    const child = execa('node', ['-e', '0']);
    await child;
    await writeFile(join(folder.path, 'service.lock'), JSON.stringify({ pid: child.pid }));
    const lock = await lockDataFolder(folder.path);
    expect(JSON.parse(await readFile(join(folder.path, 'service.lock'), 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('refuses a lock file that holds no owner record instead of taking it over, naming the file', async () => {
    await writeFile(join(folder.path, 'service.lock'), '');
    await expect(lockDataFolder(folder.path)).rejects.toThrow(/service\.lock holds no owner record; if no harness process uses this folder, delete that file/);
  });

  it('takes over a lock whose pid now belongs to another process (the pid was reused)', async () => {
    const child = execa('node', ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await writeFile(join(folder.path, 'service.lock'), JSON.stringify({ pid: child.pid, host: hostname(), processStart: 'another-boot/1', token: 'old' }));
      const lock = await lockDataFolder(folder.path);
      expect(JSON.parse(await readFile(join(folder.path, 'service.lock'), 'utf8')).pid).toBe(process.pid);
      await lock.release();
    } finally {
      child.kill('SIGKILL');
      await child.catch(() => undefined);
    }
  });

  it('lets exactly one of two processes starting together take the folder, free or stale, over 150 rounds', async () => {
    const contenders = [startContender(), startContender()];
    const exited = execa('node', ['-e', '0']);
    await exited;
    const deadPid = exited.pid!;
    try {
      const losses: string[] = [];
      let roundsWithoutOneWinner = 0;
      for (let round = 0; round < 150; round += 1) {
        if (round % 2 === 1) await writeFile(join(folder.path, 'service.lock'), JSON.stringify({ pid: deadPid, host: hostname(), token: `stale-${round}` }));
        const answers = await Promise.all(contenders.map((contender) => contender.send(`lock ${folder.path}`)));
        const winners = answers.filter((answer) => answer === 'won').length;
        if (winners !== 1) roundsWithoutOneWinner += 1;
        losses.push(...answers.filter((answer) => answer !== 'won'));
        await Promise.all(contenders.map((contender) => contender.send('release')));
      }
      expect(roundsWithoutOneWinner).toBe(0);
      for (const loss of losses) expect(loss).toMatch(/^lost The data folder .* is in use by another harness process \(pid \d+\)/);
      expect((await readdir(folder.path)).filter((file) => file !== 'service.lock')).toEqual([]);
    } finally {
      for (const contender of contenders) await contender.stop();
    }
  });
});

const contenderScript = fileURLToPath(new URL('../../../test/support/lock-contender.ts', import.meta.url));

/** A child process that takes or releases the lock when told, answering one line per command. */
function startContender(): { send(command: string): Promise<string>; stop(): Promise<void> } {
  const child: ResultPromise = execa('node', ['--import', 'tsx', contenderScript], { stdin: 'pipe', stdout: 'pipe', reject: false });
  const answers = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return {
    send: async (command) => {
      child.stdin!.write(`${command}\n`);
      const answer = await answers.next();
      if (answer.done) throw new Error(`The lock contender exited: ${(await child).stderr}`);
      return answer.value;
    },
    stop: async () => {
      child.stdin!.end();
      await child;
    },
  };
}
