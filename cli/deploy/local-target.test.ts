import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { replicaFolder, replicaPort, stageReplicaIndexes } from './local-target.js';
import { stageFolder } from './stage-folder.js';

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

describe('stage replicas', () => {
  it('replica 1 is the stage folder; replica N its own folder under it', () => {
    const folder = stageFolder('/stages', 'qa');
    expect(replicaFolder(folder, 1)).toBe(folder);
    expect(replicaFolder(folder, 3)).toEqual({
      path: '/stages/qa/replica-3',
      pidFile: '/stages/qa/replica-3/service.pid',
      logFile: '/stages/qa/replica-3/service.log',
      addressFile: '/stages/qa/replica-3/service-address.json',
      lockFile: '/stages/qa/replica-3/service.lock',
    });
  });

  it('replica N listens on the stage port + N - 1, or on a free port when the stage asks for 0', () => {
    expect([1, 2, 3].map((index) => replicaPort(4100, index))).toEqual([4100, 4101, 4102]);
    expect(replicaPort(0, 2)).toBe(0);
  });

  it('finds the replicas a stage has folders for, in order', async () => {
    const root = await mkdtemp(join(tmpdir(), 'harness-replicas-'));
    folders.push(root);
    const folder = stageFolder(root, 'qa');
    expect(await stageReplicaIndexes(folder)).toEqual([]);
    for (const name of ['replica-10', 'replica-2', 'replica-x', 'tables']) await mkdir(join(folder.path, name), { recursive: true });
    expect(await stageReplicaIndexes(folder)).toEqual([1, 2, 10]);
  });
});
