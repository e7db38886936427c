import { readFileSync } from 'node:fs';

/** The package version, read once (works from the sources and from dist/). */
export const serviceVersion: string = (() => {
  for (const candidate of ['../../package.json', '../../../package.json']) {
    try {
      const parsed = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (parsed.name === 'harness' && parsed.version) return parsed.version;
    } catch {
      // try the next candidate
    }
  }
  return '0.0.0';
})();
