import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Vitest global setup: every temporary folder a test run makes (tests, the services and CLIs
 * they start, bash calls) goes under one folder of its own, removed when the run ends, so a run
 * leaves the system temp folder as it found it. Workers and child processes inherit TMPDIR.
 * Tests still remove what they make; what is left at the end is named so it can be fixed.
 */
export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const runFolder = mkdtempSync(join(tmpdir(), 'harness-test-run-'));
  process.env.TMPDIR = runFolder;
  return () => {
    const leftovers = readdirSync(runFolder);
    if (leftovers.length > 0 && process.env.HARNESS_REPORT_TEST_LEFTOVERS) {
      process.stderr.write(`temporary folders left by tests (removed now): ${leftovers.join(', ')}\n`);
    }
    rmSync(runFolder, { recursive: true, force: true });
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
  };
}
