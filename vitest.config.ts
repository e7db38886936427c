import { defineConfig } from 'vitest/config';

/**
 * `HARNESS_TEST_STORAGE=postgres` runs the same suite on PostgreSQL (`.ci/run` does both):
 * one server for the run, a schema per data folder, dropped when its test file ends.
 */
const onPostgres = process.env.HARNESS_TEST_STORAGE === 'postgres';

export default defineConfig({
  test: {
    include: ['server/**/*.test.{ts,tsx}', 'client/**/*.test.ts', 'cli/**/*.test.{ts,tsx}', 'mock-worker/**/*.test.ts', 'fixtures/**/*.test.ts', 'scripts/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    exclude: ['test/faults/**', '**/node_modules/**'],
    pool: 'forks',
    globalSetup: ['test/support/run-temporary-folder.ts', ...(onPostgres ? ['test/support/postgres-global-setup.ts'] : [])],
    setupFiles: onPostgres ? ['test/support/test-storage-setup.ts'] : [],
  },
});
