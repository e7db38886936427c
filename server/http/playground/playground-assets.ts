import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One built file of the page, held in memory (the whole bundle is a few hundred KiB). */
export interface PlaygroundAsset {
  body: Buffer;
  contentType: string;
}

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * The folder `npm run build` writes the page to (`dist/playground` under the package), found by
 * walking up from this file so it is the same from the sources and from the compiled service.
 */
export function playgroundBuildFolder(): string | undefined {
  for (let folder = new URL('./', import.meta.url); ; folder = new URL('../', folder)) {
    if (existsSync(new URL('package.json', folder)) && existsSync(new URL('playground/', folder))) return fileURLToPath(new URL('dist/playground/', folder));
    if (folder.pathname === '/') return undefined;
  }
}

/**
 * Reads the built page once. Only files with a known type are served, by exact name: the
 * route never joins a requested path onto the folder, so nothing outside it can be reached.
 * An empty map means the page is not built.
 */
export function loadPlaygroundAssets(folder: string | undefined = playgroundBuildFolder()): Map<string, PlaygroundAsset> {
  const assets = new Map<string, PlaygroundAsset>();
  if (!folder || !existsSync(folder)) return assets;
  for (const name of readdirSync(folder)) {
    const extension = name.slice(name.lastIndexOf('.'));
    const contentType = contentTypes[extension];
    if (contentType) assets.set(name, { body: readFileSync(`${folder}/${name}`), contentType });
  }
  return assets;
}
