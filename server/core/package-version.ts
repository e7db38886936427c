import { readFileSync } from 'node:fs';

/**
 * The version in harness's own package.json, found by walking up from this file, so it is
 * the same from the sources (`server/core/`) and from the build (`dist/server/core/`).
 * `0.0.0` when no such manifest is found.
 */
export const packageVersion: string = (() => {
  for (let folder = new URL('./', import.meta.url); ; folder = new URL('../', folder)) {
    try {
      const manifest = JSON.parse(readFileSync(new URL('package.json', folder), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'harness' && manifest.version) return manifest.version;
    } catch {
      // No manifest here (or not ours): look one folder up.
    }
    if (folder.pathname === '/') return '0.0.0';
  }
})();
