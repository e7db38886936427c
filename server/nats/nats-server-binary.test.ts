import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NatsServerBinaryMissingError, defaultNatsServerSearchFolders, findNatsServerBinary } from './nats-server-binary.js';
import { makeTemporaryDataDir } from './test-support/nats-test-support.js';

describe('findNatsServerBinary', () => {
  const removals: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(removals.map((remove) => remove()));
    removals.length = 0;
  });

  // Not skipped when the binary is missing: the failure then carries the install message.
  it('finds the installed nats-server', async () => {
    expect(await findNatsServerBinary()).toMatch(/\/nats-server$/);
  });

  it('says how to install it when no folder has it', async () => {
    const promise = findNatsServerBinary([]);
    await expect(promise).rejects.toBeInstanceOf(NatsServerBinaryMissingError);
    await expect(promise).rejects.toThrow('apt-get install -y nats-server');
    await expect(promise).rejects.toThrow(/NATS_URL/);
  });

  it('skips a file that is not executable and takes the first executable one', async () => {
    const first = await makeTemporaryDataDir();
    const second = await makeTemporaryDataDir();
    removals.push(first.remove, second.remove);
    await writeFile(join(first.path, 'nats-server'), '#!/bin/sh\n', { mode: 0o644 });
    await expect(findNatsServerBinary([first.path])).rejects.toThrow('apt-get install -y nats-server');
    await writeFile(join(second.path, 'nats-server'), '#!/bin/sh\n');
    await chmod(join(second.path, 'nats-server'), 0o755);
    expect(await findNatsServerBinary([first.path, second.path])).toBe(join(second.path, 'nats-server'));
  });

  it('searches PATH first, then /usr/sbin and /usr/local/bin', () => {
    const folders = defaultNatsServerSearchFolders({ PATH: '/opt/bin:/usr/local/bin' });
    expect(folders.slice(0, 2)).toEqual(['/opt/bin', '/usr/local/bin']);
    expect(folders).toContain('/usr/sbin');
    expect(new Set(folders).size).toBe(folders.length);
  });
});
