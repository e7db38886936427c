import { describe } from 'vitest';
import { temporaryFolderPerTest } from '../../../test/support/temporary-folder.js';
import { LowdbStorage } from './lowdb-storage.js';
import { describeTableStoreContract } from './test-support/table-store-contract.js';

// The contract PostgresStorage runs too (postgres/postgres-storage.test.ts); lowdb's own
// files, log and checkpoints are tested in lowdb-storage.test.ts.
describe('LowdbStorage', () => {
  const folder = temporaryFolderPerTest();
  describeTableStoreContract('lowdb', () => new LowdbStorage(folder.path));
});
