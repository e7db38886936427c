import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HarnessCommand } from '../deploy/detached-service.js';
import { findProjectRoot } from '../deploy/project-root.js';

/**
 * How to run one of this package's entry files (`cli/main`, `scripts/cluster-host`): from the
 * sources through tsx when this module runs from them (`npx tsx cli/main.ts`, the tests), else
 * the build in `dist/`. The cluster's processes then run the same code as the command that
 * started them, with no build step.
 */
export function packageEntryCommand(entry: string, moduleFile: string = fileURLToPath(import.meta.url)): HarnessCommand {
  const root = findProjectRoot(moduleFile);
  if (moduleFile.endsWith('.ts')) return { executable: process.execPath, args: ['--import', 'tsx', join(root, `${entry}.ts`)], cwd: root };
  return { executable: process.execPath, args: [join(root, 'dist', `${entry}.js`)], cwd: root };
}

/** How to run `harness` itself. */
export function currentHarnessCommand(moduleFile?: string): HarnessCommand {
  return packageEntryCommand('cli/main', moduleFile);
}
