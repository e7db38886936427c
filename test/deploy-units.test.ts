import { spawn } from 'node:child_process';
import { appendFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runLogs } from '../cli/commands/logs.js';
import { runSecretsShow } from '../cli/commands/secrets.js';
import { runStop } from '../cli/commands/stop.js';
import { defaultPorts, readDeployInputs } from '../cli/deploy/deploy-inputs.js';
import { buildDeployOutputs, formatDeployOutputs } from '../cli/deploy/deploy-outputs.js';
import { DeployStepError, runCommand, runSteps, type StepState } from '../cli/deploy/deploy-steps.js';
import { stopStage } from '../cli/deploy/local-target.js';
import { isProcessAlive, terminateProcess } from '../cli/deploy/process-control.js';
import { runDeploy } from '../cli/deploy/run-deploy.js';
import { selectStageFolder, stageFolder } from '../cli/deploy/stage-folder.js';
import { lineStepReporter } from '../cli/deploy/step-reporter.js';
import { UsageError } from '../cli/cli-error.js';
import { createTestContext } from '../cli/test-support/test-context.js';
import { defineInfrastructure } from '../server/core/infrastructure.js';
import { temporaryFolder } from './support/temporary-folder.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function tempRoot(): Promise<string> {
  const folder = await temporaryFolder('harness-deploy-units-');
  cleanups.push(folder.remove);
  return folder.path;
}

describe('deploy inputs', () => {
  it('reads the defaults: stage local, direct API on, contract ports', () => {
    expect(readDeployInputs({})).toEqual({
      stage: 'local',
      awsProfile: null,
      enableDirectApi: true,
      enableWebsocket: null,
      natsUrl: null,
      natsTokenSet: false,
      accountPort: 4100,
      agentPort: 4200,
    });
  });

  it('takes SST_STAGE, AWS_PROFILE, the switches and NATS_URL without its user information', () => {
    const inputs = readDeployInputs({ SST_STAGE: 'staging', AWS_PROFILE: 'team-dev', ENABLE_DIRECT_API: 'false', ENABLE_WEBSOCKET: 'on', NATS_URL: 'nats://svc:pa55@nats.example:4222', NATS_TOKEN: 'tok' });
    expect(inputs).toMatchObject({ stage: 'staging', awsProfile: 'team-dev', enableDirectApi: false, enableWebsocket: true, natsUrl: 'nats://nats.example:4222', natsTokenSet: true });
    expect(JSON.stringify(inputs)).not.toContain('pa55');
    expect(JSON.stringify(inputs)).not.toContain('tok');
  });

  it('takes a NATS cluster: several comma-separated servers, host:port ones as nats://', () => {
    const inputs = readDeployInputs({ NATS_URL: 'nats://svc:pa55@n1:4222, n2:4222,nats://n3:4222' });
    expect(inputs.natsUrl).toBe('nats://n1:4222,nats://n2:4222,nats://n3:4222');
  });

  it.each([
    [{ ENABLE_DIRECT_API: 'maybe' }, /ENABLE_DIRECT_API must be true or false/],
    [{ ENABLE_WEBSOCKET: '2' }, /ENABLE_WEBSOCKET must be true or false/],
    [{ NATS_URL: 'http://nats.example' }, /NATS_URL must start with nats:\/\/, tls:\/\/, ws:\/\/ or wss:\/\//],
    [{ NATS_URL: 'not a url' }, /NATS_URL is not a valid URL/],
    [{ SST_STAGE: 'Bad_Stage' }, /SST_STAGE must be 1-32 characters/],
    [{ HARNESS_ADMIN_SECRET: 'short' }, /HARNESS_ADMIN_SECRET must be at least 32 characters/],
    [{ ACCOUNT_PORT: '70000' }, /ACCOUNT_PORT must be a port number/],
    [{ ACCOUNT_PORT: '5000', AGENT_PORT: '5000' }, /need different ports/],
    [{ AWS_PROFILE: 'two words' }, /AWS_PROFILE is not a valid profile name/],
  ])('refuses %o with a usage error naming the input', (environment, message) => {
    expect(() => readDeployInputs(environment)).toThrow(UsageError);
    expect(() => readDeployInputs(environment)).toThrow(message);
  });

  it('names --stage when the flag is what is wrong', () => {
    expect(() => readDeployInputs({}, { stage: 'UPPER' })).toThrow(/--stage must be/);
  });

  it('gives every other stage its own stable pair of default ports', () => {
    const staging = defaultPorts('staging');
    expect(defaultPorts('staging')).toEqual(staging);
    expect(staging.accountPort).toBeGreaterThan(4100);
    expect(staging.accountPort).toBeLessThan(4200);
    expect(staging.agentPort).toBe(staging.accountPort + 100);
    expect(readDeployInputs({ ACCOUNT_PORT: '0', AGENT_PORT: '0' }, { stage: 'staging' })).toMatchObject({ accountPort: 0, agentPort: 0 });
  });
});

describe('deploy outputs', () => {
  it('carry every name of the infrastructure definition and no secret value', async () => {
    const root = await tempRoot();
    const folder = stageFolder(root, 'qa');
    const environment = { HARNESS_ADMIN_SECRET: 'x'.repeat(40) };
    const outputs = buildDeployOutputs({ folder, inputs: readDeployInputs(environment, { stage: 'qa' }), urls: { accountUrl: 'http://127.0.0.1:1', agentUrl: 'http://127.0.0.1:2' }, pid: 42, environment });
    const infrastructure = defineInfrastructure('qa');
    expect(outputs).toMatchObject({
      stage: 'qa',
      region: infrastructure.region,
      accountServiceUrl: 'http://127.0.0.1:1',
      agentServiceUrl: 'http://127.0.0.1:2',
      tables: infrastructure.tables,
      filesystemBucketName: infrastructure.filesystemBucketName,
      functions: infrastructure.functions,
      tags: infrastructure.tags,
      secretNames: infrastructure.secrets,
      secretSources: { adminSecret: 'environment', configEncryptionSecret: 'generated' },
      bucketFolder: join(root, 'qa', infrastructure.filesystemBucketName),
    });
    expect(JSON.stringify(outputs)).not.toContain('x'.repeat(40));
    const table = formatDeployOutputs(outputs);
    for (const name of [...Object.values(infrastructure.tables), infrastructure.filesystemBucketName, 'http://127.0.0.1:1', 'http://127.0.0.1:2']) expect(table).toContain(name);
  });
});

describe('deploy steps', () => {
  it('stops at the first failure, names the step and shows the tail of its output', async () => {
    const states: StepState[][] = [];
    const ran: string[] = [];
    const failing = runSteps(
      [
        { name: 'typecheck', skip: '--skip-checks', run: async () => void ran.push('typecheck') },
        { name: 'lint', run: () => runCommand(process.execPath, ['-e', 'for (let i = 0; i < 60; i++) console.log("line " + i); console.error("the lint problem"); process.exit(3)'], { cwd: process.cwd(), environment: process.env, tailLines: 5 }) },
        { name: 'build', run: async () => void ran.push('build') },
      ],
      { update: (steps) => states.push([...steps]), stop: () => {} },
    );
    await expect(failing).rejects.toThrow(DeployStepError);
    const error = (await failing.catch((caught: unknown) => caught)) as DeployStepError;
    expect(error.step).toBe('lint');
    expect(error.message).toMatch(/^deploy step "lint" failed after \d+\.\d s: .* exited with code 3\. Last lines of its output:\n/);
    expect(error.message).toContain('the lint problem');
    expect(error.message).toContain('line 59');
    expect(error.message).not.toContain('line 10\n');
    expect(ran).toEqual([]);
    expect(states.at(-1)!.map((state) => state.status)).toEqual(['skipped', 'failed', 'pending']);
  });

  it('prints plain lines, one per change, for pipes and CI', () => {
    let text = '';
    const reporter = lineStepReporter({ write: (chunk: string) => (text += chunk) });
    reporter.update([{ name: 'build', status: 'running' }]);
    reporter.update([{ name: 'build', status: 'running' }]);
    reporter.update([{ name: 'build', status: 'done', elapsedMs: 1500, note: 'pid 7' }]);
    expect(text).toBe('… build\n✓ build  1.5 s  (pid 7)\n');
  });

  it('runs typecheck, lint and build through npm in the project, and the first failure stops the deploy', async () => {
    const project = await tempRoot();
    const script = (code: string) => `node -e ${JSON.stringify(code)}`;
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'fake-project', private: true, scripts: { typecheck: script('console.log("types fine")'), lint: script('console.log("src/a.ts: 1 problem"); process.exit(1)'), build: script('require("fs").writeFileSync("built", "")') } }),
    );
    const context = await createTestContext({ env: { ...(process.env as Record<string, string>), HARNESS_STAGES_DIR: join(project, 'stages') } });
    const deploying = runDeploy(context, { stage: 'broken', projectRoot: project });
    await expect(deploying).rejects.toThrow(/deploy step "lint" failed after .*src\/a\.ts: 1 problem/s);
    expect(context.errors()).toContain('✓ typecheck');
    expect(context.errors()).toContain('✗ lint');
    await expect(stat(join(project, 'built'))).rejects.toThrow();
    expect(context.output()).toBe('');
  });
});

describe('stopping a process', () => {
  it('sends SIGKILL to the whole process group when SIGTERM is ignored', async () => {
    // A detached parent that ignores SIGTERM and has a child of its own (as the service has nats-server).
    const parent = spawn(process.execPath, ['-e', `process.on('SIGTERM', () => {}); const child = require('child_process').spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'], { stdio: 'ignore' }); console.log(child.pid); setInterval(() => {}, 1000);`], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    const childPid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()))));
    const result = await terminateProcess(parent.pid!, 300);
    expect(result.signal).toBe('SIGKILL');
    expect(isProcessAlive(parent.pid!)).toBe(false);
    await expect.poll(() => isProcessAlive(childPid)).toBe(false);
  });
});

describe('operating a stage without services', () => {
  it('refuses to stop or replace a process that holds the stage folder but was not deployed', async () => {
    const root = await tempRoot();
    const folder = stageFolder(root, 'busy');
    await mkdir(folder.path, { recursive: true });
    // This test process stands in for a `harness serve` that holds the folder.
    await writeFile(folder.lockFile, JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString() }));
    await expect(stopStage(folder, { timeoutMs: 1_000 })).rejects.toThrow(`in use by process ${process.pid}, which harness deploy did not start`);
  });

  it('treats a pid file whose process is gone as not running', async () => {
    const root = await tempRoot();
    const context = await createTestContext({ env: { HARNESS_STAGES_DIR: root } });
    const folder = selectStageFolder(context.env, 'gone');
    await mkdir(folder.path, { recursive: true });
    await writeFile(folder.pidFile, JSON.stringify({ pid: 2 ** 22 + 17, startedAt: new Date().toISOString() }));
    await runStop(context, { stage: 'gone' });
    expect(context.output()).toBe('Stage gone is not running.\n');
    await expect(stat(folder.pidFile)).rejects.toThrow();
  });

  it('harness logs prints the last lines, and -f follows new ones until Ctrl-C', async () => {
    const root = await tempRoot();
    const context = await createTestContext({ env: { HARNESS_STAGES_DIR: root } });
    const folder = selectStageFolder(context.env, 'logged');
    await mkdir(folder.path, { recursive: true });
    await writeFile(folder.logFile, 'one\ntwo\nthree\n');
    await runLogs(context, { stage: 'logged', lines: 2 });
    expect(context.output()).toBe('two\nthree\n');

    const follow = await createTestContext({ env: { HARNESS_STAGES_DIR: root } });
    const following = runLogs(follow, { stage: 'logged', lines: 1, follow: true, pollMs: 20 });
    await expect.poll(() => follow.output()).toBe('three\n');
    await appendFile(folder.logFile, 'four\n');
    await expect.poll(() => follow.output()).toBe('three\nfour\n');
    follow.shutdown('SIGINT');
    await following;
  });

  it('harness logs on a stage never deployed says so', async () => {
    const context = await createTestContext({ env: { HARNESS_STAGES_DIR: await tempRoot() } });
    await expect(runLogs(context, { stage: 'nothing' })).rejects.toThrow('Stage nothing has no log');
  });

  it('harness secrets show prints generated values, and names the variable of one that came from the environment', async () => {
    const root = await tempRoot();
    const context = await createTestContext({ env: { HARNESS_STAGES_DIR: root } });
    const folder = selectStageFolder(context.env, 'sec');
    await mkdir(folder.path, { recursive: true });
    await writeFile(folder.secretsFile, JSON.stringify({ adminSecret: 'generated-admin-secret-value-0123456789' }), { mode: 0o600 });
    const environment = { HARNESS_CONFIG_ENCRYPTION_SECRET: 'e'.repeat(40) };
    const outputs = buildDeployOutputs({ folder, inputs: readDeployInputs(environment, { stage: 'sec' }), urls: { accountUrl: 'http://a', agentUrl: 'http://b' }, pid: 1, environment });
    await writeFile(folder.outputsFile, JSON.stringify(outputs));
    await runSecretsShow(context, { stage: 'sec', json: true });
    expect(JSON.parse(context.output())).toEqual({
      stage: 'sec',
      secrets: {
        adminSecret: { name: 'harness-sec-admin-secret', value: 'generated-admin-secret-value-0123456789', source: 'generated' },
        configEncryptionSecret: { name: 'harness-sec-config-encryption-secret', value: null, source: 'environment (HARNESS_CONFIG_ENCRYPTION_SECRET)' },
      },
    });
    expect(await readFile(folder.outputsFile, 'utf8')).not.toContain('generated-admin-secret-value');
  });
});
