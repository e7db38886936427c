/**
 * Builds the web playground (`playground/`) into `dist/playground/` with esbuild: one minified
 * ES module, one stylesheet and the page. `npm run build` runs it (and `prepare` runs that at
 * `npm install`). Prints the sizes (raw and gzip) and the build time.
 */
import { build, type Plugin } from 'esbuild';
import { copyFile, mkdir, readFile, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * zod (which the AI SDK validates stream chunks with) re-exports its error messages in every
 * language as `z.locales`; nothing in the page reads them, but a namespace re-export cannot be
 * tree-shaken. English stays (zod's default), the rest is left out: about 200 KB less.
 */
const englishZodMessagesOnly: Plugin = {
  name: 'english-zod-messages-only',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (arguments_) =>
      arguments_.importer.includes(`${'/zod/'}v4/`) ? { path: join(dirname(arguments_.importer), '../locales/index.js'), namespace: 'zod-locales' } : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (arguments_) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(arguments_.path), 'en.js'))};`,
      resolveDir: dirname(arguments_.path),
    }));
  },
};

export interface PlaygroundBuild {
  outputFolder: string;
  milliseconds: number;
  files: { name: string; bytes: number; gzipBytes: number }[];
}

/**
 * Builds the page into `outputFolder` (default `dist/playground`). It builds into a scratch
 * folder first and then renames each file into place, so a service reading the folder, or a
 * second build running at the same time, never sees a half-written file.
 */
export async function buildPlayground(outputFolder = join(packageRoot, 'dist/playground')): Promise<PlaygroundBuild> {
  const started = performance.now();
  const sourceFolder = join(packageRoot, 'playground');
  const scratchFolder = `${outputFolder}.building-${process.pid}-${Date.now()}`;
  await mkdir(scratchFolder, { recursive: true });
  try {
    await buildInto(sourceFolder, scratchFolder);
    await mkdir(outputFolder, { recursive: true });
    for (const name of await readdir(scratchFolder)) await rename(join(scratchFolder, name), join(outputFolder, name));
  } finally {
    await rm(scratchFolder, { recursive: true, force: true });
  }
  const milliseconds = Math.round(performance.now() - started);
  const files = [];
  for (const name of (await readdir(outputFolder)).sort()) {
    const body = await readFile(join(outputFolder, name));
    files.push({ name, bytes: body.length, gzipBytes: gzipSync(body, { level: 9 }).length });
  }
  return { outputFolder, milliseconds, files };
}

async function buildInto(sourceFolder: string, outputFolder: string): Promise<void> {
  await build({
    entryPoints: { playground: join(sourceFolder, 'main.tsx') },
    outdir: outputFolder,
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome111', 'firefox115', 'safari16'],
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    tsconfig: join(sourceFolder, 'tsconfig.json'),
    logLevel: 'warning',
    plugins: [englishZodMessagesOnly],
  });
  await copyFile(join(sourceFolder, 'playground.css'), join(outputFolder, 'playground.css'));
  await copyFile(join(sourceFolder, 'index.html'), join(outputFolder, 'index.html'));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildPlayground()
    .then((result) => {
      const total = result.files.reduce((sum, file) => ({ bytes: sum.bytes + file.bytes, gzipBytes: sum.gzipBytes + file.gzipBytes }), { bytes: 0, gzipBytes: 0 });
      const lines = result.files.map((file) => `  ${file.name.padEnd(16)} ${String(file.bytes).padStart(8)} B  ${String(file.gzipBytes).padStart(7)} B gzip`);
      console.log(`playground built in ${result.milliseconds} ms → ${result.outputFolder}\n${lines.join('\n')}\n  ${'total'.padEnd(16)} ${String(total.bytes).padStart(8)} B  ${String(total.gzipBytes).padStart(7)} B gzip`);
    })
    .catch((error: unknown) => {
      console.error(`build-playground: ${(error as Error).message}`);
      process.exitCode = 1;
    });
}
