import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fillableDisk } from '../../../test/support/full-disk-calls.js';
import { temporaryFolder, temporaryFolderPerTest } from '../../../test/support/temporary-folder.js';
import { LowdbStorage } from './lowdb-storage.js';
import { modifyRow } from './read-and-write.js';
import { ConditionFailedError } from './table-store.js';

describe('LowdbStorage', () => {
  const folder = temporaryFolderPerTest();

  it('stores rows durably: a new storage on the same folder reads them back', async () => {
    const storage = new LowdbStorage(folder.path);
    await storage.table<{ n: number }>('things').write('p1', [{ type: 'put', key: 'a', value: { n: 1 } }]);
    const reopened = new LowdbStorage(folder.path);
    expect(await reopened.table<{ n: number }>('things').get('p1', 'a')).toEqual({ key: 'a', value: { n: 1 }, version: 1 });
  });

  it('keeps one file per partition, named by a hash rather than the raw key', async () => {
    const storage = new LowdbStorage(folder.path);
    const table = storage.table<string>('things');
    await table.write('../../etc/passwd', [{ type: 'put', key: 'x', value: 'one' }]);
    await table.write('second', [{ type: 'put', key: 'x', value: 'two' }]);
    await storage.close();
    const files = await readdir(join(folder.path, 'things'));
    expect(files).toHaveLength(2);
    for (const file of files) expect(file).toMatch(/^[0-9a-f]{40}\.json$/);
    expect((await table.listPartitions()).sort()).toEqual(['../../etc/passwd', 'second']);
  });

  it('applies a conditional put only at the expected version', async () => {
    const table = new LowdbStorage(folder.path).table<string>('things');
    const [first] = await table.write('p', [{ type: 'put', key: 'k', value: 'v1', expectedVersion: null }]);
    expect(first?.version).toBe(1);
    await expect(table.write('p', [{ type: 'put', key: 'k', value: 'again', expectedVersion: null }])).rejects.toBeInstanceOf(ConditionFailedError);
    await expect(table.write('p', [{ type: 'put', key: 'k', value: 'stale', expectedVersion: 7 }])).rejects.toBeInstanceOf(ConditionFailedError);
    const [second] = await table.write('p', [{ type: 'put', key: 'k', value: 'v2', expectedVersion: 1 }]);
    expect(second).toEqual({ key: 'k', value: 'v2', version: 2 });
  });

  it('applies a batch all-or-nothing', async () => {
    const table = new LowdbStorage(folder.path).table<string>('things');
    await table.write('p', [{ type: 'put', key: 'a', value: 'a1' }]);
    await expect(
      table.write('p', [
        { type: 'put', key: 'b', value: 'b1' },
        { type: 'put', key: 'a', value: 'a2', expectedVersion: 5 },
      ]),
    ).rejects.toBeInstanceOf(ConditionFailedError);
    expect(await table.get('p', 'b')).toBeUndefined();
    expect((await table.get('p', 'a'))?.value).toBe('a1');
  });

  it('loses no write under concurrency, and exactly one of racing creators wins', async () => {
    const storage = new LowdbStorage(folder.path);
    const table = storage.table<number>('counters');
    await Promise.all(Array.from({ length: 100 }, (_, index) => table.write('p', [{ type: 'put', key: `k${index}`, value: index }])));
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => table.write('p', [{ type: 'put', key: 'once', value: 1, expectedVersion: null }])));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    await Promise.all(Array.from({ length: 50 }, () => modifyRow(table, 'p', 'counter', (current) => (current ?? 0) + 1, 100)));
    const reopened = new LowdbStorage(folder.path).table<number>('counters');
    expect(await reopened.list('p')).toHaveLength(102);
    expect((await reopened.get('p', 'counter'))?.value).toBe(50);
  });

  it('deletes rows, and a partition with no rows is not listed', async () => {
    const table = new LowdbStorage(folder.path).table<string>('things');
    const [row] = await table.write('p', [{ type: 'put', key: 'a', value: 'x' }]);
    await expect(table.write('p', [{ type: 'delete', key: 'a', expectedVersion: 9 }])).rejects.toBeInstanceOf(ConditionFailedError);
    await table.write('p', [{ type: 'delete', key: 'a', expectedVersion: row?.version }]);
    expect(await table.get('p', 'a')).toBeUndefined();
    expect(await table.listPartitions()).toEqual([]);
  });

  it('returns copies: changing a returned value does not change the stored one', async () => {
    const table = new LowdbStorage(folder.path).table<{ list: number[] }>('things');
    const value = { list: [1] };
    await table.write('p', [{ type: 'put', key: 'a', value }]);
    value.list.push(2);
    const read = await table.get('p', 'a');
    read?.value.list.push(3);
    expect((await table.get('p', 'a'))?.value).toEqual({ list: [1] });
  });

  it('leaves no temporary files behind and writes valid JSON', async () => {
    const storage = new LowdbStorage(folder.path);
    const table = storage.table<string>('things');
    await Promise.all(Array.from({ length: 30 }, (_, index) => table.write(`p${index % 3}`, [{ type: 'put', key: `k${index}`, value: 'v' }])));
    await storage.close();
    const files = await readdir(join(folder.path, 'things'));
    expect(files.filter((file) => file.endsWith('.tmp'))).toEqual([]);
    for (const file of files) expect(JSON.parse(await readFile(join(folder.path, 'things', file), 'utf8'))).toHaveProperty('rows');
  });
});

describe('LowdbStorage write-ahead log', () => {
  const folder = temporaryFolderPerTest();
  const logFiles = async () => (await readdir(join(folder.path, 'log')).catch(() => [] as string[])).sort();

  it('acknowledges a write once it is in the log; a process that died leaves it to be replayed into the partition file', async () => {
    const died = new LowdbStorage(folder.path);
    await died.table<string>('things').write('p', [{ type: 'put', key: 'a', value: 'logged' }]);
    // No partition file yet (the table folder is made when the first one is written).
    expect(await readdir(join(folder.path, 'things')).catch(() => [])).toEqual([]);
    const reopened = new LowdbStorage(folder.path);
    expect((await reopened.table<string>('things').get('p', 'a'))?.value).toBe('logged');
    const [partitionFile] = await readdir(join(folder.path, 'things'));
    expect(JSON.parse(await readFile(join(folder.path, 'things', partitionFile!), 'utf8'))).toEqual({ partition: 'p', rows: { a: { value: 'logged', version: 1 } } });
    expect(await logFiles()).toHaveLength(1);
  });

  it('replays deletes and rewrites in order', async () => {
    const died = new LowdbStorage(folder.path).table<string>('things');
    await died.write('p', [{ type: 'put', key: 'a', value: 'one' }, { type: 'put', key: 'b', value: 'kept' }]);
    await died.write('p', [{ type: 'delete', key: 'a' }]);
    await died.write('p', [{ type: 'put', key: 'c', value: 'c1' }]);
    await died.write('p', [{ type: 'put', key: 'c', value: 'c2' }]);
    const table = new LowdbStorage(folder.path).table<string>('things');
    expect(await table.list('p')).toEqual([
      { key: 'b', value: 'kept', version: 1 },
      { key: 'c', value: 'c2', version: 2 },
    ]);
  });

  it('drops a torn last line (an append that was never acknowledged), and refuses a damaged line before it', async () => {
    const died = new LowdbStorage(folder.path);
    await died.table<string>('things').write('p', [{ type: 'put', key: 'a', value: 'acknowledged' }]);
    const [segment] = await logFiles();
    await appendFile(join(folder.path, 'log', segment!), '{"table":"things","partition":"p","rows":[["b",{"val');
    expect(await new LowdbStorage(folder.path).table<string>('things').list('p')).toEqual([{ key: 'a', value: 'acknowledged', version: 1 }]);

    const [current] = await logFiles();
    await writeFile(join(folder.path, 'log', current!), 'not json\n{"table":"things","partition":"p","rows":[]}\n');
    await expect(new LowdbStorage(folder.path).table<string>('things').list('p')).rejects.toThrow(/Line 1 of the write-ahead log .* is not valid JSON/);
  });

  it('checkpoints past the segment size: partition files are rewritten and older segments removed, under concurrent writes', async () => {
    const storage = new LowdbStorage(folder.path, { checkpointBytes: 2_000 });
    const table = storage.table<{ n: number; padding: string }>('things');
    await Promise.all(Array.from({ length: 400 }, (_, index) => table.write(`p${index % 7}`, [{ type: 'put', key: `k${index}`, value: { n: index, padding: 'x'.repeat(100) } }])));
    await table.write('p0', [{ type: 'put', key: 'last', value: { n: -1, padding: '' } }]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await logFiles()).length).toBeLessThanOrEqual(2);
    const reopened = new LowdbStorage(folder.path).table<{ n: number }>('things');
    let rows = 0;
    for (const partition of await reopened.listPartitions()) rows += (await reopened.list(partition)).length;
    expect(rows).toBe(401);
    expect((await reopened.get('p0', 'last'))?.value.n).toBe(-1);
  });

  it('close writes every partition file and removes the log', async () => {
    const storage = new LowdbStorage(folder.path);
    await storage.table<string>('things').write('p', [{ type: 'put', key: 'a', value: 'v' }]);
    await storage.close();
    expect(await logFiles()).toEqual([]);
    const [partitionFile] = await readdir(join(folder.path, 'things'));
    expect(JSON.parse(await readFile(join(folder.path, 'things', partitionFile!), 'utf8')).rows.a.value).toBe('v');
  });
});

describe('LowdbStorage row keys', () => {
  it('treats constructor, __proto__ and toString as ordinary keys', async () => {
    const folder = await temporaryFolder();
    try {
      const table = new LowdbStorage(folder.path).table<string>('things');
      for (const key of ['constructor', '__proto__', 'toString']) expect(await table.get('p', key)).toBeUndefined();
      await table.write('p', [{ type: 'put', key: '__proto__', value: 'stored', expectedVersion: null }]);
      await table.write('p', [{ type: 'put', key: 'constructor', value: 'also', expectedVersion: null }]);
      const reopened = new LowdbStorage(folder.path).table<string>('things');
      expect((await reopened.get('p', '__proto__'))?.value).toBe('stored');
      expect((await reopened.list('p')).map((row) => row.key).sort()).toEqual(['__proto__', 'constructor']);
      expect(({} as Record<string, unknown>).stored).toBeUndefined();
    } finally {
      await folder.remove();
    }
  });
});

describe('LowdbStorage when a log write fails', () => {
  const folder = temporaryFolderPerTest();

  it('keeps nothing of a failed write: not in memory, not in the log, not after a restart, and later writes work', async () => {
    const disk = fillableDisk();
    const storage = new LowdbStorage(folder.path, { logFileCalls: disk.calls });
    const table = storage.table<string>('things');
    await table.write('p', [{ type: 'put', key: 'kept', value: 'acknowledged' }]);
    disk.fill(20);
    const failed = table.write('p', [{ type: 'put', key: 'lost', value: 'never acknowledged' }]);
    const sameTurnReader = table.get('p', 'lost');
    const dependent = table.write('p', [{ type: 'put', key: 'lost', value: 'depends on it', expectedVersion: 1 }]);
    await expect(failed).rejects.toMatchObject({ code: 'ENOSPC' });
    await expect(dependent).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(await sameTurnReader).toBeUndefined();
    expect(await table.get('p', 'lost')).toBeUndefined();
    disk.free();
    // The failed batch left no trace: the row does not exist, so a create succeeds at version 1.
    expect(await table.write('p', [{ type: 'put', key: 'lost', value: 'written later', expectedVersion: null }])).toEqual([{ key: 'lost', value: 'written later', version: 1 }]);
    const restarted = new LowdbStorage(folder.path).table<string>('things');
    expect(await restarted.list('p')).toEqual([
      { key: 'kept', value: 'acknowledged', version: 1 },
      { key: 'lost', value: 'written later', version: 1 },
    ]);
  });
});

describe('LowdbStorage visibility', () => {
  const folder = temporaryFolderPerTest();

  it('shows readers a write only once it is durable, however soon after the write they ask', async () => {
    const storage = new LowdbStorage(folder.path);
    const table = storage.table<string>('things');
    await table.write('p', [{ type: 'put', key: 'a', value: 'v1' }]);
    let acknowledged = false;
    const write = table.write('p', [{ type: 'put', key: 'a', value: 'v2' }]).then(() => (acknowledged = true));
    const early: string[] = [];
    const readers = Array.from({ length: 30 }, async (_, hops) => {
      for (let hop = 0; hop < hops; hop += 1) await Promise.resolve();
      const row = await table.get('p', 'a');
      if (row?.value === 'v2' && !acknowledged) early.push(`reader after ${hops} hops`);
    });
    await Promise.all([write, ...readers]);
    expect(early).toEqual([]);
    expect((await table.get('p', 'a'))?.value).toBe('v2');
    await storage.close();
  });

  it('lets exactly one of two conflicting writes of one turn succeed', async () => {
    const table = new LowdbStorage(folder.path).table<string>('things');
    const [row] = await table.write('p', [{ type: 'put', key: 'a', value: 'v1' }]);
    const results = await Promise.allSettled([
      table.write('p', [{ type: 'put', key: 'a', value: 'left', expectedVersion: row!.version }]),
      table.write('p', [{ type: 'put', key: 'a', value: 'right', expectedVersion: row!.version }]),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((await table.get('p', 'a'))?.value).toBe('left');
  });
});

describe('LowdbStorage memory', () => {
  const folder = temporaryFolderPerTest();
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('keeps nothing for lookups of partitions that do not exist', async () => {
    const storage = new LowdbStorage(folder.path);
    const table = storage.table<string>('things');
    await table.write('real', [{ type: 'put', key: 'a', value: 'v' }]);
    for (let index = 0; index < 1000; index += 1) {
      expect(await table.get(`stranger-${index}`, 'a')).toBeUndefined();
      expect(await table.list(`stranger-${index}`)).toEqual([]);
    }
    expect(storage.memory.partitions).toBe(1);
    await storage.close();
  });

  it('drops clean partitions past the byte budget, least recently used first, and reads them back from their files', async () => {
    const storage = new LowdbStorage(folder.path, { cacheBytes: 20_000 });
    const table = storage.table<string>('things');
    const padding = 'x'.repeat(1000);
    for (let index = 0; index < 100; index += 1) await table.write(`p${index}`, [{ type: 'put', key: 'row', value: `${index}${padding}` }]);
    // Not yet in their files: nothing may be dropped.
    await nextTurn();
    expect(storage.memory.partitions).toBe(100);
    await storage.close();
    await nextTurn();
    expect(storage.memory.bytes).toBeLessThanOrEqual(20_000);
    expect(storage.memory.partitions).toBeLessThan(25);
    for (let index = 0; index < 100; index += 1) expect((await table.get(`p${index}`, 'row'))?.value).toBe(`${index}${padding}`);
    await table.write('p0', [{ type: 'put', key: 'row', value: 'rewritten', expectedVersion: 1 }]);
    await nextTurn();
    expect(storage.memory.bytes).toBeLessThanOrEqual(20_000 + 2_000);
    await storage.close();
    expect((await new LowdbStorage(folder.path).table<string>('things').get('p0', 'row'))?.value).toBe('rewritten');
  });
});

describe('LowdbStorage batches', () => {
  const folder = temporaryFolderPerTest();

  it('stages nothing of a batch whose value cannot be stored, and numbers repeated keys of one batch in order', async () => {
    const table = new LowdbStorage(folder.path).table<unknown>('things');
    await expect(table.write('p', [{ type: 'put', key: 'a', value: 'fine' }, { type: 'put', key: 'b', value: () => 'not data' }])).rejects.toThrow();
    await expect(table.write('p', [{ type: 'put', key: 'a', value: 'first', expectedVersion: null }])).resolves.toEqual([{ key: 'a', value: 'first', version: 1 }]);
    expect(await table.write('p', [{ type: 'put', key: 'c', value: 1 }, { type: 'put', key: 'c', value: 2 }])).toEqual([
      { key: 'c', value: 1, version: 1 },
      { key: 'c', value: 2, version: 2 },
    ]);
    expect(await table.get('p', 'c')).toEqual({ key: 'c', value: 2, version: 2 });
  });
});
