/**
 * `npm run smoke -- --stage NAME`: the end-to-end check of a deployed stage (see
 * `scripts/smoke/run-smoke.ts`). Prints each step with its time; exits 1 naming the failed step.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { stageFromEnvironment } from '../server/core/infrastructure.js';
import { runSmoke } from './smoke/run-smoke.js';

export { runSmoke, type SmokeOptions, type SmokeReport, type SmokeStepResult } from './smoke/run-smoke.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { stage: { type: 'string' }, json: { type: 'boolean' } } });
  const stage = values.stage ?? stageFromEnvironment();
  if (!values.json) process.stdout.write(`smoke: stage ${stage}\n`);
  const report = await runSmoke({ stage, log: values.json ? undefined : (line) => process.stdout.write(`${line}\n`) });
  if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  if (report.ok) {
    if (!values.json) process.stdout.write(`smoke: passed in ${(report.elapsedMs / 1000).toFixed(1)} s\n`);
    return;
  }
  const failed = report.steps.find((step) => !step.ok);
  process.stderr.write(`smoke: step "${report.failedStep}" failed: ${failed?.error ?? 'unknown error'}\n`);
  process.exitCode = 1;
}

/** True when this file is the program being run (not imported by a test). */
function isEntry(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}


if (isEntry()) {
  main().catch((error: unknown) => {
    process.stderr.write(`smoke: ${(error as Error).message}\n`);
    process.exitCode = 1;
  });
}
