#!/usr/bin/env node
// The installed `harness` binary runs the compiled CLI (npm run build, or `prepare` on install).
import('../dist/cli/main.js').catch((error) => {
  console.error(`harness: cannot load the compiled CLI (${error.message}). Run \`npm run build\` first.`);
  process.exitCode = 1;
});
