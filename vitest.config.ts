import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['server/**/*.test.{ts,tsx}', 'cli/**/*.test.{ts,tsx}', 'mock-worker/**/*.test.ts', 'fixtures/**/*.test.ts', 'scripts/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    exclude: ['test/faults/**', '**/node_modules/**'],
    pool: 'forks',
    globalSetup: ['test/support/run-temporary-folder.ts'],
  },
});
