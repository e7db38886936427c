import { afterEach } from 'vitest';
import { temporaryFolderPerTest } from '../../../../test/support/temporary-folder.js';
import { LowdbStorage } from '../lowdb-storage.js';

/**
 * A fresh temporary folder for each test of the enclosing `describe`, and `open()`, which opens
 * lowdb storage on it (as often as a test needs: each open is a restart); every storage opened is
 * closed after the test.
 */
export function lowdbStoragePerTest(): { open(): LowdbStorage } {
  const folder = temporaryFolderPerTest();
  const storages: LowdbStorage[] = [];
  afterEach(async () => {
    for (const storage of storages.splice(0)) await storage.close();
  });
  return {
    open() {
      const storage = new LowdbStorage(folder.path);
      storages.push(storage);
      return storage;
    },
  };
}
