import type { Accounts } from '../accounts/accounts.js';
import type { Agents } from '../agents/agents.js';
import type { AsyncSettlement } from '../async-tools/async-settlement.js';
import type { AsyncToolCompletions } from '../async-tools/async-tool-completions.js';
import type { Channels } from '../channels/channels.js';
import type { CompletionWebhooks } from '../completion-webhooks/completion-webhooks.js';
import type { ConversationCompaction } from '../context/conversation-compaction.js';
import type { ConversationsRepository } from '../conversations/conversations-repository.js';
import { type Coordination, inMemoryCoordination } from '../coordination/coordination.js';
import type { RunningTurns } from '../coordination/running-turns.js';
import { asyncTurnLauncher, CronJobs, CronScheduler, type CronRunLauncher, type SchedulerClock, systemClock } from '../cron-jobs/index.js';
import { IdempotencyKeysRepository } from '../idempotency/idempotency-keys-repository.js';
import type { IdempotencyRecord } from '../idempotency/idempotency-record.js';
import { IdempotentRequests } from '../idempotency/idempotent-requests.js';
import type { InfrastructureDefinition } from '../infrastructure.js';
import type { RateBudget } from '../limits/rate-budget.js';
import type { ServiceLimits } from '../limits/service-limits.js';
import { type Logger, silentLogger } from '../logger.js';
import type { McpConnections } from '../mcp/mcp-connections.js';
import type { AsyncRequests } from '../runs/async-requests.js';
import type { RecoveryReport } from '../runs/async-recovery.js';
import type { BackgroundWorker } from '../runs/background-worker.js';
import type { ContinuationDeliveries } from '../runs/continuation-dispatcher.js';
import type { RunCancellation } from '../runs/run-cancellation.js';
import type { BubblewrapStatus } from '../sandbox/bubblewrap-probe.js';
import type { CgroupSupport } from '../sandbox/sandbox-cgroups.js';
import { WorkspaceFiles } from '../sandbox/workspace-files.js';
import type { RuntimeSecrets } from '../secrets/runtime-secrets.js';
import type { Storage } from '../storage/table-store.js';
import { ResumeAdmission } from '../stream-resumes/resume-admission.js';
import type { SwitchableChunkLog } from '../turns/switchable-chunk-log.js';
import type { TurnRunner } from '../turns/turn-runner.js';
import type { AccountUsage } from '../usage/account-usage.js';
import { buildAccountsAndAgents } from './build-accounts-and-agents.js';
import { buildRuns } from './build-runs.js';
import { type CoreSettings, coreSettingsWith } from './core-settings.js';
import { startCore, stopCore } from './core-lifecycle.js';

/**
 * What the core is built from. The settings (`CoreSettings`: limits, outbound policy, model,
 * MCP, webhooks...) are read once by `serve` (`coreSettingsFromEnvironment`) and given here;
 * any left out take their defaults. The core never reads the environment.
 */
export interface HarnessCoreOptions extends Partial<CoreSettings> {
  storage: Storage;
  infrastructure: InfrastructureDefinition;
  secrets: RuntimeSecrets;
  logger?: Logger;
  now?: () => Date;
  /** Retries of a failed model call (default 2; tests use 0). */
  modelMaxRetries?: number;
  /** Concurrent jobs of the background worker (`/async`, cron runs, continuations; default 4). */
  asyncWorkerConcurrency?: number;
  /** Bound on same-invocation async work in one turn (default 5 minutes). */
  sameInvocationTimeoutMs?: number;
  /** Host folder of the filesystem bucket (`<data folder>/<filesystemBucketName>`); workspaces and skill files live there. */
  bucketFolder?: string;
  /** What `probeBubblewrap()` found at service start; omitted means not probed, so bash is unavailable (unless the unsafe opt-in is set). */
  bubblewrap?: BubblewrapStatus;
  /** What `probeCgroups()` found at service start; omitted means bash is limited per process only. */
  sandboxCgroups?: CgroupSupport;
  /** The cron scheduler's clock (default: the real one); tests move time by hand. */
  cronClock?: SchedulerClock;
  /** Wraps how cron runs start (tests simulate a crash between claiming a slot and submitting). */
  wrapCronLauncher?: (launcher: CronRunLauncher) => CronRunLauncher;
  /**
   * How background queues, the conversation lock and the cron scheduler work together:
   * in memory (default; one process owns the storage) or across replicas sharing PostgreSQL
   * (`postgresCoordination`, chosen by `serve` from the storage kind).
   */
  coordination?: Coordination;
}

/**
 * Everything the service does, wired once and shared by the account and agent services (and
 * by anything else that drives the core: workers, the scheduler, tests). Each route is given
 * the members it uses (`Pick<HarnessCore, ...>`).
 */
export interface HarnessCore {
  infrastructure: InfrastructureDefinition;
  limits: ServiceLimits;
  /** Per-account request budgets of the agent service: turns, completions, webhooks (counted service-wide on PostgreSQL). */
  rateLimiters: { turns: RateBudget; completions: RateBudget; webhooks: RateBudget };
  logger: Logger;
  accounts: Accounts;
  agents: Agents;
  conversations: ConversationsRepository;
  /** `POST .../conversations/{key}/compact`: a conversation's older part summarized on demand (docs/context.md). */
  compaction: ConversationCompaction;
  turns: TurnRunner;
  asyncSettlement: AsyncSettlement;
  /** Settles async tool calls and dispatches the continuations their settlement claims. */
  asyncCompletions: AsyncToolCompletions;
  /** The chunks of streamed turns, for resuming a stream: in memory until the NATS side sets its JetStream log. */
  chunkLog: SwitchableChunkLog;
  /** Bounds the stream resumes and NATS replays open at once, per account and per turn (this process). */
  resumeAdmission: ResumeAdmission;
  /** Each transport's continuation delivery (SSE, channels; NATS adds its own when its gateway starts). */
  continuationDeliveries: ContinuationDeliveries;
  asyncRequests: AsyncRequests;
  /** Cancel requests: stop a running turn on any replica, or close a run that waits. */
  cancellation: RunCancellation;
  /** The turns running now, on every replica (a resume waits on one that has not said anything yet). */
  runningTurns: RunningTurns;
  /** Runs `/async` requests, cron runs and every continuation after async tools. */
  asyncWorker: BackgroundWorker;
  /** Token usage per account, agent and day, and the daily token budget. */
  usage: AccountUsage;
  /** Channel webhooks, their background worker and the deliveries table. */
  channels: Channels;
  /** Completion webhooks: a finished status row POSTed, signed, to the agent's `config.webhooks.completion`. */
  completionWebhooks: CompletionWebhooks;
  cronJobs: CronJobs;
  cronScheduler: CronScheduler;
  /** Pooled connections to agents' MCP servers (`config.mcp`), under the outbound policy. */
  mcpConnections: McpConnections;
  /** The files of agents' workspaces, for `harness workspace push|pull|ls`. */
  workspaceFiles: WorkspaceFiles;
  /** `Idempotency-Key` on chat, `/async`, cron-job creation and completions: claims, recorded answers, replays. */
  idempotency: IdempotentRequests;
  /** Recover unfinished async work from storage, then start the cron scheduler; call once the service is ready. */
  start(): Promise<RecoveryReport>;
  /** Take no new background work and wait for what runs. */
  stop(): Promise<void>;
}

/** Builds the core: every part once, each with its dependencies as constructor inputs. */
export function createHarnessCore(options: HarnessCoreOptions): HarnessCore {
  const now = options.now ?? (() => new Date());
  const logger = options.logger ?? silentLogger;
  const coordination = options.coordination ?? inMemoryCoordination();
  const settings = coreSettingsWith(options);
  const inputs = { storage: options.storage, infrastructure: options.infrastructure, secrets: options.secrets, settings, coordination, logger, now };
  const shared = buildAccountsAndAgents(inputs);
  const runs = buildRuns(inputs, shared, {
    ...(options.bucketFolder !== undefined ? { bucketFolder: options.bucketFolder } : {}),
    bubblewrap: options.bubblewrap ?? { available: false, reason: 'bubblewrap was not probed' },
    ...(options.sandboxCgroups ? { sandboxCgroups: options.sandboxCgroups } : {}),
    modelMaxRetries: options.modelMaxRetries ?? 2,
    sameInvocationTimeoutMs: options.sameInvocationTimeoutMs ?? 300_000,
    asyncWorkerConcurrency: options.asyncWorkerConcurrency ?? 4,
  });
  const cronClock = options.cronClock ?? systemClock(now);
  const cronLauncher = asyncTurnLauncher(runs.asyncRequests, runs.transitions);
  const cronScheduler = new CronScheduler({ repository: shared.cronRepository, launcher: options.wrapCronLauncher?.(cronLauncher) ?? cronLauncher, clock: cronClock, logger, resyncIntervalMs: coordination.cronResyncIntervalMs });
  const cronJobs = new CronJobs({ repository: shared.cronRepository, agents: shared.agents, scheduler: cronScheduler, now: () => cronClock.now() });
  const idempotency = new IdempotentRequests({ repository: new IdempotencyKeysRepository(options.storage.table<IdempotencyRecord>(options.infrastructure.tables.idempotencyKeys)), settings: settings.idempotency, now, logger });
  const parts = { coordination, shared, runs, cronScheduler, idempotency, logger };
  return {
    infrastructure: options.infrastructure,
    limits: settings.limits,
    rateLimiters: shared.rateLimiters,
    logger,
    accounts: shared.accounts,
    agents: shared.agents,
    conversations: runs.conversations,
    compaction: runs.compaction,
    turns: runs.turns,
    asyncSettlement: runs.asyncSettlement,
    asyncCompletions: runs.asyncCompletions,
    chunkLog: runs.chunkLog,
    resumeAdmission: new ResumeAdmission(settings.resumes),
    continuationDeliveries: runs.continuationDeliveries,
    asyncRequests: runs.asyncRequests,
    cancellation: runs.cancellation,
    runningTurns: coordination.runningTurns,
    asyncWorker: runs.asyncWorker,
    usage: shared.usage,
    channels: runs.channels,
    completionWebhooks: runs.completionWebhooks,
    cronJobs,
    cronScheduler,
    mcpConnections: shared.mcpConnections,
    workspaceFiles: new WorkspaceFiles(shared.agents, options.bucketFolder, settings.sandboxSettings.diskQuotaBytes),
    idempotency,
    start: () => startCore(parts),
    stop: () => stopCore(parts),
  };
}
