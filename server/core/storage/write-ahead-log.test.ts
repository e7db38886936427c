import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
