// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.harness/**', '.scratch/**', 'bin/**'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // The core is what the service does; it must not know about HTTP or the terminal UI.
    files: ['server/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['fastify', 'fastify/*', '@fastify/*'], message: 'server/core must not import Fastify: keep HTTP in server/http.' },
          { group: ['ink', 'ink-*', 'react'], message: 'server/core must not import Ink or React.' },
          { group: ['../http/*', '../../http/*', '**/cli/**'], message: 'server/core must not import the HTTP layer or the CLI.' },
        ],
      }],
    },
  },
  {
    // The CLI is a NATS client like any other: of the service's NATS code it may use only the
    // protocol both ends share and the connector, never the gateway, replay or server internals.
    files: ['cli/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/server/nats/*', '!**/server/nats/nats-protocol.js', '!**/server/nats/nats-connection.js'], message: 'The CLI may import only nats-protocol.ts and nats-connection.ts from server/nats.' },
        ],
      }],
    },
  },
  {
    // harness/client and the contract run in browsers too: fetch, streams and TextDecoder only.
    files: ['client/**/*.ts', 'contract/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['node:*', 'undici', 'fastify', '@fastify/*'], message: 'harness/client must work in a browser: no Node-only imports.' },
          { group: ['**/server/**', '**/cli/**', '**/playground/**'], message: 'harness/client and the contract import neither the service, the CLI nor the playground.' },
        ],
      }],
    },
  },
  {
    // Output layers may print.
    files: ['cli/**/*.{ts,tsx}', 'scripts/**/*.ts', 'fixtures/**/*.ts', 'mock-worker/**/*.ts', '**/*.test.ts', 'test/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['eslint.config.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
