import { afterEach, describe, expect, it } from 'vitest';
import { modifyRow } from '../read-and-write.js';
import { ConditionFailedError, type Storage } from '../table-store.js';

/**
 * The behaviour every `Storage` must have, written once and run against each backend. `open`
 * returns a new storage on the same place each time it is called within a test (what a
 * restarted process opens); each test gets a fresh, empty place.
 */
export function describeTableStoreContract(backend: string, open: () => Storage): void {
  describe(`${backend}: the TableStore contract`, () => {
    const opened: Storage[] = [];
    const storage = () => {
      const created = open();
      opened.push(created);
      return created;
    };
    afterEach(async () => {
      for (const created of opened.splice(0)) await created.close();
    });

    it('stores rows durably: a new storage on the same place reads them back', async () => {
      await storage().table<{ n: number }>('things').write('p1', [{ type: 'put', key: 'a', value: { n: 1 } }]);
      expect(await storage().table<{ n: number }>('things').get('p1', 'a')).toEqual({ key: 'a', value: { n: 1 }, version: 1 });
    });

    it('keeps tables apart, and lists every partition that holds rows, whatever its name', async () => {
      const first = storage();
      await first.table<string>('things').write('../../etc/passwd', [{ type: 'put', key: 'x', value: 'one' }]);
      await first.table<string>('things').write('second', [{ type: 'put', key: 'x', value: 'two' }]);
      await first.table<string>('others').write('second', [{ type: 'put', key: 'x', value: 'other' }]);
      expect((await storage().table<string>('things').listPartitions()).sort()).toEqual(['../../etc/passwd', 'second']);
      expect((await first.table<string>('things').get('second', 'x'))?.value).toBe('two');
      expect(await first.table<string>('others').list('second')).toEqual([{ key: 'x', value: 'other', version: 1 }]);
      expect(await first.table<string>('empty').listPartitions()).toEqual([]);
    });

    it('applies a conditional put only at the expected version', async () => {
      const table = storage().table<string>('things');
      const [first] = await table.write('p', [{ type: 'put', key: 'k', value: 'v1', expectedVersion: null }]);
      expect(first?.version).toBe(1);
      await expect(table.write('p', [{ type: 'put', key: 'k', value: 'again', expectedVersion: null }])).rejects.toBeInstanceOf(ConditionFailedError);
      await expect(table.write('p', [{ type: 'put', key: 'k', value: 'stale', expectedVersion: 7 }])).rejects.toBeInstanceOf(ConditionFailedError);
      await expect(table.write('p', [{ type: 'put', key: 'missing', value: 'x', expectedVersion: 1 }])).rejects.toBeInstanceOf(ConditionFailedError);
      const [second] = await table.write('p', [{ type: 'put', key: 'k', value: 'v2', expectedVersion: 1 }]);
      expect(second).toEqual({ key: 'k', value: 'v2', version: 2 });
    });

    it('applies a batch all-or-nothing', async () => {
      const table = storage().table<string>('things');
      await table.write('p', [{ type: 'put', key: 'a', value: 'a1' }, { type: 'put', key: 'c', value: 'c1' }]);
      await expect(
        table.write('p', [
          { type: 'put', key: 'b', value: 'b1' },
          { type: 'delete', key: 'c' },
          { type: 'put', key: 'a', value: 'a2', expectedVersion: 5 },
        ]),
      ).rejects.toBeInstanceOf(ConditionFailedError);
      expect(await storage().table<string>('things').list('p')).toEqual([
        { key: 'a', value: 'a1', version: 1 },
        { key: 'c', value: 'c1', version: 1 },
      ]);
    });

    it('checks every condition against the rows as they were before the batch, then applies the operations in order', async () => {
      const table = storage().table<string>('things');
      await table.write('p', [{ type: 'put', key: 'k', value: 'v1' }]);
      const written = await table.write('p', [
        { type: 'put', key: 'k', value: 'v2', expectedVersion: 1 },
        { type: 'put', key: 'k', value: 'v3', expectedVersion: 1 },
        { type: 'put', key: 'new', value: 'n1', expectedVersion: null },
      ]);
      expect(written).toEqual([
        { key: 'k', value: 'v2', version: 2 },
        { key: 'k', value: 'v3', version: 3 },
        { key: 'new', value: 'n1', version: 1 },
      ]);
      expect(await table.get('p', 'k')).toEqual({ key: 'k', value: 'v3', version: 3 });
      expect(await table.write('p', [])).toEqual([]);
    });

    it('loses no write under concurrency, and exactly one of racing creators wins', async () => {
      const table = storage().table<number>('counters');
      await Promise.all(Array.from({ length: 100 }, (_, index) => table.write('p', [{ type: 'put', key: `k${index}`, value: index }])));
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => table.write('p', [{ type: 'put', key: 'once', value: 1, expectedVersion: null }])));
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      await Promise.all(Array.from({ length: 50 }, () => modifyRow(table, 'p', 'counter', (current) => (current ?? 0) + 1, 100)));
      const reopened = storage().table<number>('counters');
      expect(await reopened.list('p')).toHaveLength(102);
      expect((await reopened.get('p', 'counter'))?.value).toBe(50);
    });

    it('deletes rows, and a partition with no rows is not listed', async () => {
      const table = storage().table<string>('things');
      const [row] = await table.write('p', [{ type: 'put', key: 'a', value: 'x' }]);
      await expect(table.write('p', [{ type: 'delete', key: 'a', expectedVersion: 9 }])).rejects.toBeInstanceOf(ConditionFailedError);
      await table.write('p', [{ type: 'delete', key: 'a', expectedVersion: row?.version }]);
      await table.write('p', [{ type: 'delete', key: 'never-there' }]);
      expect(await table.get('p', 'a')).toBeUndefined();
      expect(await table.listPartitions()).toEqual([]);
    });

    it('lists rows in the order they were created: an update keeps its place, a row deleted and put again moves to the end', async () => {
      const table = storage().table<string>('things');
      for (const key of ['zeta', 'alpha', 'mid']) await table.write('p', [{ type: 'put', key, value: key }]);
      await table.write('p', [{ type: 'put', key: 'zeta', value: 'zeta2' }]);
      await table.write('p', [{ type: 'delete', key: 'alpha' }]);
      await table.write('p', [{ type: 'put', key: 'alpha', value: 'alpha2' }]);
      expect((await storage().table<string>('things').list('p')).map((row) => [row.key, row.value, row.version])).toEqual([
        ['zeta', 'zeta2', 2],
        ['mid', 'mid', 1],
        ['alpha', 'alpha2', 1],
      ]);
    });

    it('returns copies: changing a returned value does not change the stored one', async () => {
      const table = storage().table<{ list: number[] }>('things');
      const value = { list: [1] };
      const [written] = await table.write('p', [{ type: 'put', key: 'a', value }]);
      value.list.push(2);
      written?.value.list.push(4);
      const read = await table.get('p', 'a');
      read?.value.list.push(3);
      (await table.list('p'))[0]?.value.list.push(5);
      expect((await table.get('p', 'a'))?.value).toEqual({ list: [1] });
    });

    it('keeps JSON values exactly: nesting, key order, unicode, control characters', async () => {
      const value = { zeta: 1, alpha: [true, null, 2.5, -0.001, 1e21], text: 'é 漢字 🎉 "quoted" \\ back\nline\u0000nul', nested: { b: { c: [] }, a: {} } };
      await storage().table<typeof value>('things').write('p', [{ type: 'put', key: 'k', value }]);
      const read = (await storage().table<typeof value>('things').get('p', 'k'))?.value;
      expect(read).toEqual(value);
      expect(JSON.stringify(read)).toBe(JSON.stringify(value));
      await storage().table<string>('strings').write('p', [{ type: 'put', key: 's', value: 'a plain string' }]);
      expect((await storage().table<string>('strings').get('p', 's'))?.value).toBe('a plain string');
    });

    it('treats constructor, __proto__ and toString as ordinary keys', async () => {
      const table = storage().table<string>('things');
      for (const key of ['constructor', '__proto__', 'toString']) expect(await table.get('p', key)).toBeUndefined();
      await table.write('p', [{ type: 'put', key: '__proto__', value: 'stored', expectedVersion: null }]);
      await table.write('p', [{ type: 'put', key: 'constructor', value: 'also', expectedVersion: null }]);
      const reopened = storage().table<string>('things');
      expect((await reopened.get('p', '__proto__'))?.value).toBe('stored');
      expect((await reopened.list('p')).map((row) => row.key).sort()).toEqual(['__proto__', 'constructor']);
      expect(({} as Record<string, unknown>).stored).toBeUndefined();
    });
  });
}
