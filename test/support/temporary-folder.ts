import { afterEach, beforeEach } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh folder under the system temp folder, and a function that removes it. */
export async function temporaryFolder(prefix = 'harness-test-'): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/**
 * A fresh temporary folder for each test of the enclosing `describe`, removed after the test.
 * Read `path` inside a test (or a hook), not when the block is declared.
 */
export function temporaryFolderPerTest(prefix?: string): { readonly path: string } {
  let folder: Awaited<ReturnType<typeof temporaryFolder>> | undefined;
  beforeEach(async () => {
    folder = await temporaryFolder(prefix);
  });
  afterEach(async () => {
    await folder?.remove();
    folder = undefined;
  });
  return {
    get path() {
      if (!folder) throw new Error('temporaryFolderPerTest: the folder exists only while a test runs');
      return folder.path;
    },
  };
}
