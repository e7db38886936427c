import { readFile, readdir, stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../cli/deploy/process-control.js';
import type { DeployOutputs } from '../cli/deploy/deploy-outputs.js';
import { stopStage } from '../cli/deploy/local-target.js';
import { stageFolder } from '../cli/deploy/stage-folder.js';
import { runInProcess } from '../cli/test-support/run-in-process.js';
import { createTestContext, type TestContext } from '../cli/test-support/test-context.js';
import { defineInfrastructure } from '../server/core/infrastructure.js';
import { runSmoke } from '../scripts/smoke.js';
import { postgresInstalled, startPostgresServer, type PostgresServer } from './support/postgres-server.js';
import { temporaryFolder } from './support/temporary-folder.js';
import { testDatabaseUrl } from './support/test-storage.js';

/**
 * `harness deploy` end to end on the local target: a build, the detached services from
 * `dist/`, a redeploy that keeps the data, the smoke test against the stage, stop; then
 * once the whole path with the real typecheck and lint. Runs in order, on one temporary
 * stage root. The only test file that builds dist/, so no two builds race.
 */
const stage = 'e2e';
let root: { path: string; remove: () => Promise<void> };

async function context(): Promise<TestContext> {
  // The real environment (PATH for npm and node) with the stage root moved and NATS off.
  return createTestContext({ env: { ...(process.env as Record<string, string>), HARNESS_STAGES_DIR: root.path, ENABLE_WEBSOCKET: 'false', LOG_LEVEL: 'info' } });
}

async function deploy(flags: string[]): Promise<{ outputs: DeployOutputs; context: TestContext }> {
  const deployContext = await context();
  await runInProcess(deployContext, ['deploy', '--stage', stage, '--account-port', '0', '--agent-port', '0', '--json', ...flags]);
  return { outputs: JSON.parse(deployContext.output()) as DeployOutputs, context: deployContext };
}

async function getJson(url: string, secret?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { headers: secret ? { authorization: `Bearer ${secret}` } : {} });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  root = await temporaryFolder('harness-deploy-stage-');
});
afterAll(async () => {
  await stopStage(stageFolder(root.path, stage), { timeoutMs: 5_000 }).catch(() => undefined);
  await root.remove();
});

describe('harness deploy on the local target', () => {
  let first: DeployOutputs;
  let secret: string;

  it('builds, starts the services from dist/ detached, and prints the outputs (checks skipped)', { timeout: 180_000 }, async () => {
    const { outputs, context: deployContext } = await deploy(['--skip-checks']);
    first = outputs;
    const progress = deployContext.errors();
    expect(progress).toContain('- typecheck  skipped  (--skip-checks)');
    for (const step of ['build', 'stop running services', 'start services', 'write outputs']) expect(progress).toMatch(new RegExp(`✓ ${step}  \\d+\\.\\d s`));
    expect(await getJson(`${outputs.accountServiceUrl}/`)).toMatchObject({ status: 200, body: { service: 'account', status: 'ok' } });
    expect(await getJson(`${outputs.agentServiceUrl}/`)).toMatchObject({ status: 200, body: { service: 'agent', status: 'ok' } });
    expect(isProcessAlive(outputs.pid)).toBe(true);
  });

  it('writes outputs that match the infrastructure definition, and the stage folder files', async () => {
    const infrastructure = defineInfrastructure(stage);
    expect(first).toMatchObject({
      stage,
      region: infrastructure.region,
      tables: infrastructure.tables,
      filesystemBucketName: infrastructure.filesystemBucketName,
      functions: infrastructure.functions,
      tags: infrastructure.tags,
      secretNames: infrastructure.secrets,
    });
    const outputsContext = await context();
    await runInProcess(outputsContext, ['outputs', '--stage', stage, '--json']);
    expect(JSON.parse(outputsContext.output())).toEqual(first);

    const folder = stageFolder(root.path, stage);
    const files = await readdir(folder.path);
    expect(files).toEqual(expect.arrayContaining(['outputs.json', 'service.pid', 'service.log', 'service-secrets.json', 'service.lock', infrastructure.filesystemBucketName]));
    expect((await stat(folder.secretsFile)).mode & 0o777).toBe(0o600);
    expect((await stat(folder.bucketFolder)).isDirectory()).toBe(true);
  });

  it('never prints the runtime secrets, except through harness secrets show', async () => {
    const secretsContext = await context();
    await runInProcess(secretsContext, ['secrets', 'show', '--stage', stage, '--json']);
    const shown = JSON.parse(secretsContext.output()) as { secrets: { adminSecret: { value: string } } };
    expect(shown.secrets.adminSecret.value).toMatch(/^[\w-]{32,}$/);
    const outputsContext = await context();
    await runInProcess(outputsContext, ['outputs', '--stage', stage]);
    expect(outputsContext.output()).not.toContain(shown.secrets.adminSecret.value);
    expect(JSON.stringify(first)).not.toContain(shown.secrets.adminSecret.value);
  });

  it('redeploys: stops the old process, starts a new one on the same data, and the account is still there', { timeout: 120_000 }, async () => {
    const created = await fetch(`${first.accountServiceUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'kept', description: 'survives a redeploy' }) });
    expect(created.status).toBe(201);
    secret = ((await created.json()) as { secret: string }).secret;

    const { outputs } = await deploy(['--skip-checks', '--skip-build']);
    expect(outputs.pid).not.toBe(first.pid);
    expect(isProcessAlive(first.pid)).toBe(false);
    expect(await getJson(`${outputs.accountServiceUrl}/accounts/me`, secret)).toMatchObject({ status: 200, body: { username: 'kept' } });
    first = outputs;
  });

  it('passes the smoke test against the deployed stage', { timeout: 60_000 }, async () => {
    const report = await runSmoke({ stage, stagesDir: root.path });
    expect(report.steps.filter((step) => !step.ok)).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('stops the stage; the smoke test then fails naming the step, and stop is idempotent', { timeout: 60_000 }, async () => {
    const stopContext = await context();
    await runInProcess(stopContext, ['stop', '--stage', stage]);
    expect(stopContext.output()).toMatch(new RegExp(`^Stopped stage ${stage} \\(pid ${first.pid}, SIGTERM, \\d+\\.\\d s\\)\\.\\n$`));
    expect(isProcessAlive(first.pid)).toBe(false);

    const report = await runSmoke({ stage, stagesDir: root.path, stepTimeoutMs: 5_000 });
    expect(report.failedStep).toBe('services answer GET /');
    expect(report.steps.at(-1)?.error).toContain('the account service is down');

    const again = await context();
    await runInProcess(again, ['stop', '--stage', stage]);
    expect(again.output()).toBe(`Stage ${stage} is not running.\n`);
  });

  it('the log holds the services\' lines from both deploys', async () => {
    const logsContext = await context();
    await runInProcess(logsContext, ['logs', '--stage', stage, '-n', '1000']);
    expect(logsContext.output().match(/--- harness deploy: starting stage e2e/g)).toHaveLength(2);
    expect(logsContext.output()).toContain('"service":"account"');
  });

  it('deploys 2 replicas on one PostgreSQL: both serve the same data, logs per replica, a redeploy to 1 stops both', { timeout: 120_000, skip: !postgresInstalled() }, async () => {
    const replicaStage = 'e2e-replicas';
    // The run's database when the suite is on PostgreSQL, else a server of this test's own.
    let server: PostgresServer | undefined;
    const databaseUrl = (await testDatabaseUrl(`${root.path}/${replicaStage}`)) ?? (server = await startPostgresServer()).adminUrl;
    const password = new URL(databaseUrl).password;
    const folder = stageFolder(root.path, replicaStage);
    try {
      const deployContext = await context();
      await runInProcess(deployContext, ['deploy', '--stage', replicaStage, '--skip-checks', '--skip-build', '--replicas', '2', '--database-url', databaseUrl, '--account-port', '0', '--agent-port', '0', '--json']);
      const outputs = JSON.parse(deployContext.output()) as DeployOutputs;
      expect(outputs.replicas.map((replica) => replica.index)).toEqual([1, 2]);
      expect(outputs.accountServiceUrl).toBe(outputs.replicas[0]!.accountServiceUrl);
      expect(outputs.pid).toBe(outputs.replicas[0]!.pid);
      expect(outputs.inputs).toMatchObject({ replicas: 2, databaseUrl: expect.stringMatching(/^postgres:\/\/harness@127\.0\.0\.1:\d+\//) });
      expect(deployContext.output() + deployContext.errors()).not.toContain(password);
      expect(await readFile(folder.outputsFile, 'utf8')).not.toContain(password);

      const [first, second] = outputs.replicas as [DeployOutputs['replicas'][number], DeployOutputs['replicas'][number]];
      const created = await fetch(`${first.accountServiceUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'shared', description: 'through replica 1' }) });
      expect(created.status).toBe(201);
      const secret = ((await created.json()) as { secret: string }).secret;
      expect(await getJson(`${second.accountServiceUrl}/accounts/me`, secret)).toMatchObject({ status: 200, body: { username: 'shared' } });

      const logsContext = await context();
      await runInProcess(logsContext, ['logs', '--stage', replicaStage, '-n', '1000']);
      expect(logsContext.output()).toContain(`[replica 1] --- harness deploy: starting stage ${replicaStage} replica 1`);
      expect(logsContext.output()).toContain(`[replica 2] --- harness deploy: starting stage ${replicaStage} replica 2`);
      const oneLog = await context();
      await runInProcess(oneLog, ['logs', '--stage', replicaStage, '--replica', '2', '-n', '1000']);
      expect(oneLog.output()).toMatch(new RegExp(`^--- harness deploy: starting stage ${replicaStage} replica 2`));

      const redeployContext = await context();
      await runInProcess(redeployContext, ['deploy', '--stage', replicaStage, '--skip-checks', '--skip-build', '--database-url', databaseUrl, '--account-port', '0', '--agent-port', '0', '--json']);
      const single = JSON.parse(redeployContext.output()) as DeployOutputs;
      expect(single.replicas).toHaveLength(1);
      expect(isProcessAlive(first.pid)).toBe(false);
      expect(isProcessAlive(second.pid)).toBe(false);
      expect(await getJson(`${single.accountServiceUrl}/accounts/me`, secret)).toMatchObject({ status: 200, body: { username: 'shared' } });
    } finally {
      await stopStage(folder, { timeoutMs: 5_000 }).catch(() => undefined);
      await server?.stop();
    }
  });

  it('refuses more than one replica without a database', async () => {
    const deployContext = await context();
    await expect(runInProcess(deployContext, ['deploy', '--stage', 'e2e-lonely', '--skip-checks', '--skip-build', '--replicas', '3'])).rejects.toThrow(/3 replicas need a shared PostgreSQL database: pass --database-url/);
  });

  // The one run of the whole path: the repository's real typecheck, lint and build. Last, so
  // its build does not rewrite dist/ under a service that is starting.
  it('runs typecheck, lint and build, then deploys (the full path)', { timeout: 300_000 }, async () => {
    const fullStage = 'e2e-full';
    const deployContext = await context();
    try {
      await runInProcess(deployContext, ['deploy', '--stage', fullStage, '--account-port', '0', '--agent-port', '0', '--json']);
      const outputs = JSON.parse(deployContext.output()) as DeployOutputs;
      for (const step of ['typecheck', 'lint', 'build', 'start services']) expect(deployContext.errors()).toMatch(new RegExp(`✓ ${step}  \\d+\\.\\d s`));
      expect(await getJson(`${outputs.agentServiceUrl}/`)).toMatchObject({ status: 200, body: { service: 'agent' } });
    } finally {
      await stopStage(stageFolder(root.path, fullStage), { timeoutMs: 5_000 });
    }
  });
});
