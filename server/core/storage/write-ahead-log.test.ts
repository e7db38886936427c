import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fillableDisk } from '../../../test/support/full-disk-calls.js';
import { temporaryFolderPerTest } from '../../../test/support/temporary-folder.js';
import { WriteAheadLog } from './write-ahead-log.js';

describe('WriteAheadLog', () => {
  const folder = temporaryFolderPerTest();

  it('writes every line in the order appended, concurrent appends included', async () => {
    const log = new WriteAheadLog(folder.path);
    await log.open();
    await Promise.all(Array.from({ length: 50 }, (_, index) => log.append(`{"n":${index}}`)));
    await log.append('{"n":50}');
    const [segment] = await readdir(folder.path);
    const text = await readFile(join(folder.path, segment!), 'utf8');
    expect(text.trimEnd().split('\n')).toEqual(Array.from({ length: 51 }, (_, index) => `{"n":${index}}`));
    expect(log.currentSegmentBytes).toBe(Buffer.byteLength(text));
    await log.close();
  });

  it('rotates while appends are queued: nothing lost, older segments reported, later lines in the new segment', async () => {
    const log = new WriteAheadLog(folder.path);
    await log.open();
    await log.append('"before"');
    const queued = log.append('"queued"');
    let switched = false;
    const older = await log.rotate(() => {
      switched = true;
    });
    expect(switched).toBe(true);
    await queued;
    await log.append('"after"');
    expect(older).toEqual([1]);
    const { lines, segments } = await log.readExisting();
    expect(segments).toEqual([1, 2]);
    expect(lines).toEqual(['"before"', '"queued"', '"after"']);
    await log.removeSegments(older);
    const remaining = (await log.readExisting()).lines;
    expect(remaining.at(-1)).toBe('"after"');
    expect(remaining).not.toContain('"before"');
    await log.close();
  });

  it('drops a torn last line followed only by an empty segment (killed mid-write while rotating), and refuses one followed by lines', async () => {
    await writeFile(join(folder.path, '000001.log'), '"kept"\n"torn');
    await writeFile(join(folder.path, '000002.log'), '');
    expect((await new WriteAheadLog(folder.path).readExisting()).lines).toEqual(['"kept"']);
    await writeFile(join(folder.path, '000002.log'), '"later"\n');
    await expect(new WriteAheadLog(folder.path).readExisting()).rejects.toThrow(/000001\.log ends in an incomplete line/);
  });

  it('refuses appends when it is not open', async () => {
    const log = new WriteAheadLog(folder.path);
    await expect(log.append('"x"')).rejects.toThrow('not open');
  });
});

describe('WriteAheadLog on a full disk', () => {
  const folder = temporaryFolderPerTest();

  it('fails every append of a group that hits a full disk, cuts the torn bytes off, and appends normally once there is room', async () => {
    const disk = fillableDisk();
    const log = new WriteAheadLog(folder.path, disk.calls);
    await log.open();
    await log.append('"acknowledged"');
    disk.fill(10);
    const group = await Promise.allSettled([log.append('"first of a failed group"'), log.append('"second"')]);
    expect(group.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect((group[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'ENOSPC' });
    disk.free();
    await log.append('"after"');
    expect((await log.readExisting()).lines).toEqual(['"acknowledged"', '"after"']);
    await log.close();
  });

  it('refuses every later append, naming the segment, when the torn bytes cannot be cut off', async () => {
    const disk = fillableDisk();
    const log = new WriteAheadLog(folder.path, disk.calls);
    await log.open();
    await log.append('"acknowledged"');
    disk.fill(5);
    disk.failTruncate = true;
    await expect(log.append('"torn"')).rejects.toMatchObject({ code: 'ENOSPC' });
    disk.free();
    await expect(log.append('"refused"')).rejects.toThrow(/000001\.log could not be cut back .*no write is accepted until the service restarts/);
    await log.close();
    // The torn line is the last one: a restart drops it.
    expect((await new WriteAheadLog(folder.path).readExisting()).lines).toEqual(['"acknowledged"']);
  });
});
