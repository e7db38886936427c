import { createServer } from 'node:net';
import { execa } from 'execa';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSmoke } from '../scripts/smoke.js';
import { serve, type RunningServices } from '../server/serve.js';
import { temporaryFolder } from './support/temporary-folder.js';
import { testDatabaseUrl } from './support/test-storage.js';

const projectRoot = fileURLToPath(new URL('../', import.meta.url));

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('smoke script against running services', () => {
  let services: RunningServices;
  let removeFolder: () => Promise<void>;

  beforeAll(async () => {
    const folder = await temporaryFolder('harness-smoke-');
    removeFolder = folder.remove;
    // The smoke needs no NATS; keep the service from starting a nats-server.
    process.env.ENABLE_WEBSOCKET = 'false';
    services = await serve({ accountPort: 0, agentPort: 0, dataDir: folder.path, databaseUrl: await testDatabaseUrl(folder.path), stage: 'smoke', logger: false });
  });
  afterAll(async () => {
    await services?.close();
    await removeFolder?.();
  });

  it('passes every step against the services', async () => {
    const lines: string[] = [];
    const report = await runSmoke({ stage: 'smoke', urls: { accountServiceUrl: services.accountUrl, agentServiceUrl: services.agentUrl }, log: (line) => lines.push(line) });
    expect(report.steps.filter((step) => !step.ok)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.steps.map((step) => step.name)).toEqual([
      'read outputs',
      'services answer GET /',
      'start fixture model and mock worker',
      'create account',
      'configure approval agent',
      'chat over SSE through an approval',
      'configure external-dispatch agent',
      'async run through the mock worker',
      'create and delete a cron job',
      'delete the agents',
    ]);
    expect(lines).toHaveLength(10);
    expect(lines.every((line) => /^✓ .+ {2}\d+(\.\d)? (ms|s)$/.test(line))).toBe(true);
  });

  it('fails at "services answer GET /" naming the service that is down', async () => {
    const report = await runSmoke({ stage: 'smoke', urls: { accountServiceUrl: services.accountUrl, agentServiceUrl: `http://127.0.0.1:${await closedPort()}` }, stepTimeoutMs: 5_000 });
    expect(report.ok).toBe(false);
    expect(report.failedStep).toBe('services answer GET /');
    expect(report.steps.at(-1)?.error).toMatch(/^the agent service is down: http:\/\/127\.0\.0\.1:\d+\/ did not answer \(ECONNREFUSED\)$/);
    expect(report.steps).toHaveLength(2);
  });

  it('npm run smoke exits 1 naming the failed step when the stage was never deployed', async () => {
    const stages = await temporaryFolder('harness-smoke-stages-');
    try {
      const result = await execa('node', ['--import', 'tsx', 'scripts/smoke.ts', '--stage', 'missing'], { cwd: projectRoot, env: { HARNESS_STAGES_DIR: stages.path }, reject: false });
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain('smoke: step "read outputs" failed: Stage missing has no outputs');
      expect(result.stdout).toContain('✗ read outputs');
    } finally {
      await stages.remove();
    }
  });
});
