import { afterAll } from 'vitest';
import { dropTestSchemas } from './test-storage.js';

/**
 * Vitest setup file, loaded with each test file when the run is on PostgreSQL: the schemas
 * the file's storages and services made are dropped when it ends.
 */
afterAll(async () => {
  await dropTestSchemas();
});
