import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { writeFileAtomically } from '../cli/atomic-write.js';
import type { ClusterSecrets } from '../cli/cluster/cluster-secrets.js';
import { clusterPaths, type ClusterPaths, type HostReady } from '../cli/cluster/cluster-state.js';
import { startFixtureModel } from '../fixtures/model-server/fixture-model-server.js';
import { startFixtureSearch } from '../fixtures/search-server/fixture-search-server.js';
import { startMockWorker } from '../mock-worker/mock-worker.js';
import { startNatsCluster } from '../server/nats/nats-cluster.js';
import { deriveNatsSecret } from '../server/nats/nats-service.js';
import { createProcessLogger } from '../server/process-logger.js';

/** How many NATS servers the local cluster runs: JetStream then keeps 3 replicas and survives the loss of one. */
const clusterNatsSize = 3;

/**
 * The cluster's host process (`scripts/cluster-host.ts --folder <cluster folder>`, started
 * detached by `harness cluster up`; a script, not a CLI command, because the CLI is only a
 * NATS client and does not run NATS servers): the
 * fixtures of `npm start` (fake model, fake search, mock worker), which live in a process,
 * and the NATS servers, which are its children and stop with it. Runs until SIGTERM, then
 * stops them all.
 */
async function runClusterHost(paths: ClusterPaths, waitForShutdown: () => Promise<string>): Promise<void> {
  const logger = createProcessLogger(process.env.LOG_LEVEL ?? 'info', process.stderr);
  const secrets = JSON.parse(await readFile(paths.secretsFile, 'utf8')) as ClusterSecrets;
  await mkdir(paths.hostFolder, { recursive: true, mode: 0o700 });
  await rm(paths.hostReadyFile, { force: true });
  const started: { close(): Promise<void> }[] = [];
  const stopAll = async (): Promise<void> => {
    for (const part of started.splice(0).reverse()) await part.close().catch(() => undefined);
  };
  try {
    const modelApiKey = `sk-fixture-${randomBytes(12).toString('hex')}`;
    const searchApiKey = `tvly-fixture-${randomBytes(12).toString('hex')}`;
    const model = await startFixtureModel({ apiKey: modelApiKey, port: 0 });
    started.push(model);
    const search = await startFixtureSearch({ apiKey: searchApiKey, port: 0 });
    started.push(search);
    const worker = await startMockWorker({ port: 0, delayMs: 1000 });
    started.push(worker);
    // The operator and account keys come from the admin secret, so every replica that holds it (NATS_AUTH=jwt) is trusted.
    const nats = await startNatsCluster({ dataDir: paths.hostFolder, stageSecret: deriveNatsSecret(secrets.adminSecret, 'stage-secret'), size: clusterNatsSize, logger });
    started.push({ close: () => nats.stop() });
    const ready: HostReady & { searchApiKey: string } = {
      pid: process.pid,
      nats: {
        urls: nats.url.split(','),
        websocketUrls: nats.websocketUrl.split(','),
        pids: nats.servers.map((server) => server?.pid ?? 0),
      },
      fixtures: { modelUrl: model.baseURL, modelApiKey, searchUrl: search.baseURL, mockWorkerUrl: worker.dispatchUrl },
      // The search fixture's key travels to the replicas with its URL (ALPHA_API_KEY).
      searchApiKey,
    };
    await writeFileAtomically(paths.hostReadyFile, `${JSON.stringify(ready, null, 2)}\n`, 0o600);
    logger.info({ event: 'cluster-host-ready' }, 'cluster host ready');
  } catch (error) {
    await stopAll();
    throw error;
  }
  const signal = await waitForShutdown();
  logger.info({ signal }, 'cluster host stopping');
  await stopAll();
  await rm(paths.hostReadyFile, { force: true });
}

function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => resolve(signal);
    process.once('SIGTERM', onSignal).once('SIGINT', onSignal);
  });
}

const folderAt = process.argv.indexOf('--folder');
const folder = folderAt >= 0 ? process.argv[folderAt + 1] : undefined;
if (folder === undefined) {
  process.stderr.write('usage: cluster-host --folder <cluster folder>\n');
  process.exitCode = 2;
} else {
  runClusterHost(clusterPaths({ HARNESS_CLUSTER_DIR: folder }), waitForSignal).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`cluster host: ${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
