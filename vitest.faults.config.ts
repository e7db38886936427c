import { defineConfig } from 'vitest/config';

/** `npm run test:faults`: the fault suite (kills, restarts, races), each test printing its figure. */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/support/run-temporary-folder.ts'],
    fileParallelism: false,
  },
});
