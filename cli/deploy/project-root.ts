import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The harness package's root folder, found upward from this module, so deploy works the
 * same from the sources (`cli/deploy/`) and from the build (`dist/cli/deploy/`).
 */
export function findProjectRoot(from: string = fileURLToPath(import.meta.url)): string {
  let folder = dirname(from);
  for (;;) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'harness') return folder;
      } catch {
        // Not a readable manifest: keep looking upward.
      }
    }
    const parent = dirname(folder);
    if (parent === folder) throw new Error(`Cannot find the harness package root above ${from}.`);
    folder = parent;
  }
}
