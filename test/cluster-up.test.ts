import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresInstalled } from '../cli/cluster/local-postgres.js';
import type { ClusterState } from '../cli/cluster/cluster-state.js';
import { recordedProcesses } from '../cli/cluster/cluster-stop.js';
import { isProcessAlive } from '../cli/deploy/process-control.js';
import { cliEnvironment, runCli } from '../cli/e2e/run-cli.js';
import { findNatsServerBinary } from '../server/nats/nats-server-binary.js';
import { requestJson } from './support/json-request.js';
import { temporaryFolder } from './support/temporary-folder.js';

/**
 * `harness cluster up` end to end, as a user runs it: the real CLI in a child process starts
 * PostgreSQL, 3 NATS servers, the fixtures and 3 replicas detached, and returns. Work written
 * through one replica is read and run through the others; `cluster down` leaves no process.
 */
let root: { path: string; remove: () => Promise<void> };
let environment: Record<string, string>;
let state: ClusterState | undefined;

beforeAll(async () => {
  root = await temporaryFolder('harness-cluster-up-');
  environment = cliEnvironment(join(root.path, 'config'), { HARNESS_CLUSTER_DIR: join(root.path, 'cluster'), LOG_LEVEL: 'warn' });
  // Missing binaries fail the test with how to install them, rather than skip it.
  await findNatsServerBinary();
  if (!postgresInstalled()) throw new Error('harness cluster up needs PostgreSQL: install Debian\'s postgresql package (apt-get install postgresql) or set HARNESS_POSTGRES_BIN.');
});

afterAll(async () => {
  // Also after a failure half-way: nothing of the cluster may outlive the test.
  if (state !== undefined) await runCli(['cluster', 'down', '--timeout', '5'], environment);
  await root.remove();
}, 60_000);

describe('harness cluster up / down', () => {
  it('starts a cluster whose replicas are one service, and stops every process of it', { timeout: 180_000 }, async () => {
    const up = await runCli(['cluster', 'up', '--json'], environment);
    expect(up.stderr).toBe('');
    expect(up.exitCode).toBe(0);
    state = JSON.parse(up.stdout) as ClusterState;
    expect(state.replicas.map((replica) => replica.index)).toEqual([1, 2, 3]);
    expect(state.nats?.urls).toHaveLength(3);
    expect(state.database?.url).toMatch(/^postgres:\/\/harness@127\.0\.0\.1:\d+\/harness$/);
    const [first, second, third] = state.replicas as [ClusterState['replicas'][number], ClusterState['replicas'][number], ClusterState['replicas'][number]];
    for (const replica of state.replicas) {
      expect(await requestJson(`${replica.agentServiceUrl}/`)).toMatchObject({ status: 200, body: { service: 'agent', stage: 'cluster', nats: 'connected' } });
    }

    // Twice: the running cluster is reported, nothing starts again.
    const again = await runCli(['cluster', 'up'], environment);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('The cluster is already running');
    expect(again.stdout).toContain(first.accountServiceUrl);
    expect(again.stdout).not.toMatch(/postgres:\/\/harness:/);

    const account = await requestJson(`${first.accountServiceUrl}/accounts`, { method: 'POST', body: { username: 'cluster-user', description: 'made through replica 1' } });
    expect(account.status).toBe(201);
    const secret = String(account.body.secret);
    const agent = await requestJson(`${second.accountServiceUrl}/accounts/me/agents/helper`, {
      method: 'PUT',
      secret,
      body: { config: { system: 'Be brief.', provider: { openai: { apiKey: state.fixtures!.modelApiKey, baseURL: state.fixtures!.modelUrl, model: 'fixture-model', api: 'responses' } } } },
    });
    expect(agent.status).toBe(201);
    const turn = await requestJson(`${third.agentServiceUrl}/agents/helper/chat`, { method: 'POST', secret, body: { conversationKey: 'across', message: 'hello from replica 3' } });
    expect(turn).toMatchObject({ status: 200, body: { status: 'completed' } });
    expect(String(turn.body.text)).toContain('hello from replica 3');
    const conversation = await requestJson(`${first.agentServiceUrl}/agents/helper/conversations/across`, { secret });
    expect(conversation.status).toBe(200);
    expect(JSON.stringify(conversation.body)).toContain('hello from replica 3');
    expect((conversation.body.messages as unknown[]).length).toBeGreaterThanOrEqual(2);

    const processes = recordedProcesses(state);
    expect(processes).toHaveLength(8);
    const down = await runCli(['cluster', 'down'], environment);
    expect(down.exitCode).toBe(0);
    expect(down.stdout).toMatch(/^Stopped the cluster in .*: replica 1 \(pid \d+\), replica 2 .*, host .*, nats 1 .*, postgres \(pid \d+\)\.\n$/);
    state = undefined;
    for (const { pid } of processes) await expect.poll(() => isProcessAlive(pid), { timeout: 10_000 }).toBe(false);
    expect(existsSync(join(root.path, 'cluster', 'state.json'))).toBe(false);

    const nothing = await runCli(['cluster', 'down'], environment);
    expect(nothing.stdout).toBe(`No cluster is running in ${join(root.path, 'cluster')}.\n`);
  });
});
