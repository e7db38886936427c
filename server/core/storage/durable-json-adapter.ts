import { readFile } from 'node:fs/promises';
import type { Adapter } from 'lowdb';
import { replaceFile, writeFileDurably } from './durable-file.js';

/**
 * A lowdb adapter that reads a JSON file and writes it durably (fsync + atomic rename +
 * folder fsync). lowdb's own `JSONFile` renames atomically but never fsyncs, and
 * `JSONFilePreset` is memory-only under NODE_ENV=test, so neither is used.
 */
export class DurableJsonAdapter<T> implements Adapter<T> {
  /** The length of the JSON text last read or written (0 before either): a size estimate for caches. */
  bytes = 0;

  /**
   * `syncFolder` false: a write leaves the folder's fsync to the owner, who syncs it once
   * after many files (`replaceFile`) and before relying on any of them.
   */
  constructor(
    private readonly path: string,
    private readonly options: { syncFolder?: boolean } = {},
  ) {}

  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    this.bytes = text.length;
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new Error(`Data file ${this.path} is not valid JSON: ${(error as Error).message}`, { cause: error });
    }
  }

  async write(data: T): Promise<void> {
    const text = JSON.stringify(data);
    await (this.options.syncFolder === false ? replaceFile(this.path, text) : writeFileDurably(this.path, text));
    this.bytes = text.length;
  }
}
