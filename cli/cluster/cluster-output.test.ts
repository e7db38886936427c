import { describe, expect, it } from 'vitest';
import { formatClusterState, formatStoppedParts } from './cluster-output.js';
import type { ClusterState } from './cluster-state.js';
import { recordedProcesses } from './cluster-stop.js';

const state: ClusterState = {
  folder: '/tmp/cluster',
  stage: 'cluster',
  startedAt: '2026-01-01T00:00:00.000Z',
  database: { url: 'postgres://harness@127.0.0.1:5433/harness', pid: 40, port: 5433 },
  host: { pid: 30, logFile: '/tmp/cluster/host/host.log' },
  nats: { urls: ['nats://127.0.0.1:1', 'nats://127.0.0.1:2', 'nats://127.0.0.1:3'], websocketUrls: ['ws://127.0.0.1:4', 'ws://127.0.0.1:5', 'ws://127.0.0.1:6'], pids: [31, 32, 33] },
  fixtures: { modelUrl: 'http://127.0.0.1:7/v1', modelApiKey: 'sk-fixture-1', searchUrl: 'http://127.0.0.1:8', mockWorkerUrl: 'http://127.0.0.1:9/dispatch' },
  replicas: [1, 2, 3].map((index) => ({ index, accountServiceUrl: `http://127.0.0.1:41${index}`, agentServiceUrl: `http://127.0.0.1:42${index}`, pid: 10 + index, logFile: `/tmp/cluster/replica-${index}/service.log` })),
};

describe('cluster output', () => {
  it('prints every URL: each replica, NATS_URL, the database without a password, the fixtures', () => {
    const text = formatClusterState(state, false);
    for (const url of ['http://127.0.0.1:411', 'http://127.0.0.1:423', 'nats://127.0.0.1:1,nats://127.0.0.1:2,nats://127.0.0.1:3', 'postgres://harness@127.0.0.1:5433/harness', 'http://127.0.0.1:7/v1', 'http://127.0.0.1:8', 'http://127.0.0.1:9/dispatch']) {
      expect(text).toContain(url);
    }
    expect(text).toMatch(/^The cluster is running: 3 replicas/);
    expect(formatClusterState(state, true)).toMatch(/^The cluster is already running \(since 2026-01-01T00:00:00\.000Z\)/);
  });

  it('records every process: replicas, host, NATS servers, PostgreSQL', () => {
    expect(recordedProcesses(state).map((entry) => `${entry.part}=${entry.pid}`)).toEqual(['replica 1=11', 'replica 2=12', 'replica 3=13', 'host=30', 'nats 1=31', 'nats 2=32', 'nats 3=33', 'postgres=40']);
  });

  it('says what down stopped and what was already gone', () => {
    expect(formatStoppedParts('/tmp/cluster', [])).toBe('No cluster is running in /tmp/cluster.');
    expect(formatStoppedParts('/tmp/cluster', [{ part: 'replica 1', pid: 11, wasRunning: true }, { part: 'host', pid: 30, wasRunning: false }])).toBe('Stopped the cluster in /tmp/cluster: replica 1 (pid 11). Already gone: host (pid 30).');
  });
});
