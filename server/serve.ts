import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Coordination } from './core/coordination/coordination.js';
import { coordinationSettingsFromEnvironment } from './core/coordination/postgres/coordination-settings.js';
import { postgresCoordination } from './core/coordination/postgres/postgres-coordination.js';
import { coreSettingsFromEnvironment } from './core/composition/core-settings.js';
import { createHarnessCore } from './core/composition/harness-core.js';
import { silentLogger } from './core/logger.js';
import { defineInfrastructure } from './core/infrastructure.js';
import { probeBubblewrap } from './core/sandbox/bubblewrap-probe.js';
import { probeCgroups } from './core/sandbox/sandbox-cgroups.js';
import { sandboxStartReport } from './core/sandbox/sandbox-start-report.js';
import { loadRuntimeSecrets } from './core/secrets/runtime-secrets.js';
import { lockDataFolder } from './core/storage/data-folder-lock.js';
import { makeFolderDurably } from './core/storage/durable-file.js';
import { LowdbStorage } from './core/storage/lowdb-storage.js';
import { storageSettingsFromEnvironment } from './core/storage/storage-settings.js';
import { postgresSettingsFromEnvironment } from './core/storage/postgres/postgres-settings.js';
import { PostgresStorage } from './core/storage/postgres/postgres-storage.js';
import type { Storage } from './core/storage/table-store.js';
import { buildAccountService } from './http/account-service.js';
import { buildAgentService } from './http/agent-service.js';
import { chunkRetentionSettingsFromEnvironment } from './nats/chunk-retention-settings.js';
import { readNatsSettings, type NatsSettings } from './nats/nats-settings.js';
import { startNatsService, type NatsService } from './nats/nats-service.js';
import { createProcessLogger } from './process-logger.js';
import { waitForDatabase } from './core/storage/postgres/wait-for-database.js';
import { bucketFolderFor, readRuntimeSettings } from './runtime-settings.js';
import { ensureTracingStarted } from './telemetry/ensure-tracing.js';

export interface ServeOptions {
  accountPort?: number;
  agentPort?: number;
  host?: string;
  dataDir?: string;
  stage?: string;
  /** The logger; `false` for none (tests). Default: JSON lines on stdout at `LOG_LEVEL` (info). */
  logger?: FastifyBaseLogger | false;
  /** NATS as `readNatsSettings()` reads it from the environment, unless given here (tests, benchmarks). */
  nats?: NatsSettings;
  /** PostgreSQL storage at this URL instead of lowdb files in the data folder. Default: `HARNESS_DATABASE_URL`. */
  databaseUrl?: string;
}

export interface RunningServices {
  accountUrl: string;
  agentUrl: string;
  dataDir: string;
  stage: string;
  /** Stop listening, finish in-flight requests, flush storage, release the data folder. */
  close(): Promise<void>;
}

/**
 * Start both services in this process on one data folder: the single entry that listens.
 * `buildAccountService` / `buildAgentService` only build; this takes the lock, opens storage,
 * listens, and knows how to shut down cleanly.
 */
export async function serve(options: ServeOptions = {}): Promise<RunningServices> {
  const settings = readRuntimeSettings({
    stage: options.stage,
    dataDir: options.dataDir,
    host: options.host,
    accountPort: options.accountPort,
    agentPort: options.agentPort,
  });
  // Every setting of the core, read once here; the core never reads the environment.
  const coreSettings = coreSettingsFromEnvironment(process.env);
  const { sandboxSettings } = coreSettings;
  const infrastructure = defineInfrastructure(settings.stage);
  const storageSettings = storageSettingsFromEnvironment();
  await makeFolderDurably(settings.dataDir);
  const database = postgresSettingsFromEnvironment(process.env, options.databaseUrl);
  // lowdb files belong to one process; on PostgreSQL, replicas share the database instead.
  const lock = database ? undefined : await lockDataFolder(settings.dataDir);
  const logger = options.logger === false ? undefined : (options.logger ?? createProcessLogger());
  // Names this replica in spans and in the owners of its leases (replicas may share a data folder, not ports).
  const replicaName = process.env.HARNESS_REPLICA_ID || `${hostname()}:${settings.dataDir}:${settings.accountPort}:${settings.agentPort}`;
  // Before anything is built, so that the spans name this replica and the start is logged
  // here (the HTTP apps join the same tracing when they are built).
  const tracing = ensureTracingStarted({ instanceId: replicaName, ...(logger ? { logger } : {}) });
  const storage: Storage = database
    ? new PostgresStorage({ ...database, onConnectionError: (error) => logger?.warn({ err: error }, 'a pooled PostgreSQL connection failed; the pool opens another') })
    : new LowdbStorage(`${settings.dataDir}/tables`, storageSettings);
  let nats: NatsService | undefined;
  let coordination: Coordination | undefined;
  try {
    // Connect and migrate now, so a wrong URL or an unreachable database stops the start.
    if (storage instanceof PostgresStorage) {
      // Replicas may start with the database: wait for it a while (HARNESS_DATABASE_WAIT_MS, default 30 s).
      await waitForDatabase(() => storage.ready(), { waitMilliseconds: database!.startWaitMilliseconds, ...(logger ? { logger } : {}) });
    }
    const secrets = await loadRuntimeSecrets(settings.dataDir);
    if (database && (!process.env.HARNESS_ADMIN_SECRET || !process.env.HARNESS_CONFIG_ENCRYPTION_SECRET)) {
      // Each replica would generate its own into its data folder: another replica could not read the agent configs this one encrypts.
      logger?.warn({ event: 'secrets' }, 'on PostgreSQL, set HARNESS_ADMIN_SECRET and HARNESS_CONFIG_ENCRYPTION_SECRET to the same values on every replica');
    }
    // The filesystem bucket: a folder named by the infrastructure definition, under the data folder unless HARNESS_BUCKET_DIR moves it.
    const bucketFolder = bucketFolderFor(settings.dataDir, infrastructure.filesystemBucketName);
    await mkdir(bucketFolder, { recursive: true, mode: 0o700 });
    // Probed once: bash calls run inside bubblewrap, or not at all unless the operator opts in.
    const [bubblewrap, sandboxCgroups] = await Promise.all([probeBubblewrap(), probeCgroups()]);
    const sandboxReport = sandboxStartReport(bubblewrap, sandboxCgroups, sandboxSettings);
    logger?.[sandboxReport.level](sandboxReport.fields, sandboxReport.message);
    // Replicas on one database coordinate through it; one process on lowdb keeps everything in memory.
    coordination = database ? postgresCoordination({
          connectionString: database.connectionString,
          settings: coordinationSettingsFromEnvironment(),
          logger: logger ?? silentLogger,
          replicaName,
        }) : undefined;
    const core = createHarnessCore({ ...coreSettings, storage, infrastructure, secrets, logger, bucketFolder, bubblewrap, sandboxCgroups, coordination });
    // Before core.start(): boot recovery may hand NATS continuations to the gateway.
    const natsService = await startNatsService({ settings: options.nats ?? readNatsSettings(), retentionShare: chunkRetentionSettingsFromEnvironment(), core, dataDir: settings.dataDir, adminSecret: secrets.adminSecret, logger: logger?.child({ service: 'nats' }) ?? core.logger });
    nats = natsService;
    const accountApp = buildAccountService({ core, logger: logger?.child({ service: 'account' }), natsCredentials: (accountId) => natsService.credentials(accountId) });
    const agentApp = buildAgentService({ core, logger: logger?.child({ service: 'agent' }), enableDirectApi: settings.enableDirectApi, natsState: () => natsService.state() });
    const accountAddress = await accountApp.listen({ port: settings.accountPort, host: settings.host });
    const agentAddress = await agentApp.listen({ port: settings.agentPort, host: settings.host }).catch(async (error: unknown) => {
      await accountApp.close();
      throw error;
    });
    await core.start();
    let closing: Promise<void> | undefined;
    return {
      accountUrl: accountAddress,
      agentUrl: agentAddress,
      dataDir: settings.dataDir,
      stage: settings.stage,
      close: () => {
        closing ??= (async () => {
          await Promise.allSettled([accountApp.close(), agentApp.close()]);
          await natsService.close();
          await core.stop();
          await storage.close();
          await tracing?.release();
          await lock?.release();
        })();
        return closing;
      },
    };
  } catch (error) {
    await nats?.close();
    await coordination?.close().catch(() => undefined);
    await storage.close().catch(() => undefined); // the start's own error is the one to report
    await tracing?.release().catch(() => undefined);
    await lock?.release();
    throw error;
  }
}
