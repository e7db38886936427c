import { MemoryChunkLog } from '../turns/memory-chunk-log.js';
import { ResumeAdmission } from '../stream-resumes/resume-admission.js';
import { type ResumeLimits, resumeLimitsFromEnvironment } from '../stream-resumes/resume-settings.js';
import { SwitchableChunkLog } from '../turns/switchable-chunk-log.js';
import { AccountsRepository } from '../accounts/accounts-repository.js';
import { Accounts } from '../accounts/accounts.js';
import { signupSettingsFromEnvironment, type SignupSettings } from '../accounts/signup-policy.js';
import type { StoredAgent } from '../agents/agent.js';
import { AgentsRepository } from '../agents/agents-repository.js';
import { Agents } from '../agents/agents.js';
import type { AsyncRequestRecord } from '../runs/status-row.js';
import { AsyncRequestTransitions } from '../runs/status-row-transitions.js';
import { AsyncRequests, viewAsyncRequest } from '../runs/async-requests.js';
import { AsyncRequestsRepository } from '../runs/status-rows-repository.js';
import { recoverAsyncWork, type RecoveryReport } from '../runs/async-recovery.js';
import type { AsyncTableRow } from '../async-tools/async-tool-result.js';
import { AsyncToolCompletions } from '../async-tools/async-tool-completions.js';
import { AsyncToolResultsRepository } from '../async-tools/async-tool-results-repository.js';
import { AsyncSettlement } from '../async-tools/async-settlement.js';
import { ContinuationDispatcher } from '../runs/continuation-dispatcher.js';
import { BackgroundWorker } from '../runs/background-worker.js';
import { type ConversationRow, ConversationsRepository } from '../conversations/conversations-repository.js';
import type { ChannelDelivery } from '../channels/channel-deliveries-repository.js';
import { createChannels, type Channels } from '../channels/channels.js';
import { CompletionWebhooks } from '../completion-webhooks/completion-webhooks.js';
import { WebhookDeliveriesRepository } from '../completion-webhooks/webhook-deliveries-repository.js';
import type { WebhookDelivery } from '../completion-webhooks/webhook-delivery.js';
import { type WebhookSettings, webhookSettingsFromEnvironment } from '../completion-webhooks/webhook-settings.js';
import type { CronTableRow } from '../cron-jobs/cron-job.js';
import { asyncTurnLauncher, CronJobs, CronJobsRepository, CronScheduler, type CronRunLauncher, type SchedulerClock, systemClock } from '../cron-jobs/index.js';
import { type Coordination, inMemoryCoordination } from '../coordination/coordination.js';
import type { InfrastructureDefinition } from '../infrastructure.js';
import { type Logger, silentLogger } from '../logger.js';
import { ConfigCipher } from '../secrets/config-encryption.js';
import type { RuntimeSecrets } from '../secrets/runtime-secrets.js';
import type { Storage } from '../storage/table-store.js';
import { type ToolEnvironment, toolEnvironmentFrom } from '../tools/tool-context.js';
import { saveConversation } from '../turns/save-conversation.js';
import { TurnAdmission } from '../turns/turn-admission.js';
import { RunCancellation } from '../runs/run-cancellation.js';
import type { RunningTurns } from '../coordination/running-turns.js';
import { TurnRunner } from '../turns/turn-runner.js';
import { BusyConversations } from '../runs/busy-conversations.js';
import { busySettingsFromEnvironment, type BusySettings } from '../runs/busy-settings.js';
import { ConversationInbox, type InboxEntry } from '../runs/conversation-inbox.js';
import { type TurnSettings, turnSettingsFromEnvironment } from '../turns/turn-settings.js';
import type { BubblewrapStatus } from '../sandbox/bubblewrap-probe.js';
import type { CgroupSupport } from '../sandbox/sandbox-cgroups.js';
import { type SandboxSettings, sandboxSettingsFromEnvironment } from '../sandbox/sandbox-settings.js';
import { sandboxToolSource } from '../sandbox/sandbox-tool-source.js';
import { WorkspaceFiles } from '../sandbox/workspace-files.js';
import { skillsToolSource } from '../skills/load-skill-tool.js';
import { subagentToolSource } from '../subagents/run-subagent-tool.js';
import type { RateBudget } from '../limits/rate-budget.js';
import { limitsFromEnvironment, type ServiceLimits } from '../limits/service-limits.js';
import { createModelFetch } from '../model/model-fetch.js';
import { type ModelSettings, modelSettingsFromEnvironment } from '../model/model-settings.js';
import { type ChannelSettings, channelSettingsFromEnvironment } from '../channels/channel-settings.js';
import { AccountUsage } from '../usage/account-usage.js';
import { DailyTokenBudget } from '../usage/daily-token-budget.js';
import { UsageRepository, type UsageRow } from '../usage/usage-repository.js';
import { checkAgentDestinations } from '../agent-config/agent-destinations.js';
import { UntrustedJsonSchemas } from '../json-schema/untrusted-json-schemas.js';
import { StructuredOutput } from '../structured-output/structured-output.js';
import { checkMcpServerCount } from '../mcp/mcp-config-schema.js';
import { McpConnections } from '../mcp/mcp-connections.js';
import { type McpSettings, mcpSettingsFromEnvironment } from '../mcp/mcp-settings.js';
import { mcpToolSource } from '../mcp/mcp-tool-source.js';
import { OutboundPolicy } from '../outbound/outbound-policy.js';
import { IdempotencyKeysRepository } from '../idempotency/idempotency-keys-repository.js';
import type { IdempotencyRecord } from '../idempotency/idempotency-record.js';
import { type IdempotencySettings, idempotencySettingsFromEnvironment } from '../idempotency/idempotency-settings.js';
import { IdempotentRequests } from '../idempotency/idempotent-requests.js';
import { outboundSettingsFromEnvironment, type OutboundSettings } from '../outbound/outbound-settings.js';

export interface HarnessCoreOptions {
  storage: Storage;
  infrastructure: InfrastructureDefinition;
  secrets: RuntimeSecrets;
  logger?: Logger;
  now?: () => Date;
  /** Service-wide tool settings; default: from the environment (ALPHA_API_KEY, ALPHA_BASE_URL...). */
  toolEnvironment?: ToolEnvironment;
  /** Retries of a failed model call (default 2; tests use 0). */
  modelMaxRetries?: number;
  /** Rate limits and size limits; default: `HARNESS_LIMIT_*` over the defaults. */
  limits?: ServiceLimits;
  /** Concurrent jobs of the background worker (`/async`, cron runs, continuations; default 4). */
  asyncWorkerConcurrency?: number;
  /** Bound on same-invocation async work in one turn (default 5 minutes). */
  sameInvocationTimeoutMs?: number;
  /** Host folder of the filesystem bucket (`<data folder>/<filesystemBucketName>`); workspaces and skill files live there. */
  bucketFolder?: string;
  /** What `probeBubblewrap()` found at service start; omitted means not probed, so bash is unavailable (unless the unsafe opt-in is set). */
  bubblewrap?: BubblewrapStatus;
  /** The operator's sandbox settings; default: `HARNESS_SANDBOX_*` over the defaults. */
  sandboxSettings?: SandboxSettings;
  /** What `probeCgroups()` found at service start; omitted means bash is limited per process only. */
  sandboxCgroups?: CgroupSupport;
  /** The cron scheduler's clock (default: the real one); tests move time by hand. */
  cronClock?: SchedulerClock;
  /** Where accounts' outbound calls may go; default: `HARNESS_OUTBOUND_POLICY` and `HARNESS_OUTBOUND_ALLOW`. */
  outbound?: OutboundSettings;
  /** Bounds on one model call's answer; default: `HARNESS_MODEL_MAX_RESPONSE_BYTES` and `HARNESS_MODEL_MAX_RESPONSE_MS`. */
  model?: ModelSettings;
  /** Bounds on what a turn's model calls leave behind; default: `HARNESS_TURN_*`. */
  turns?: TurnSettings;
  /** Bounds on channel providers' API answers; default: `HARNESS_CHANNEL_*`. */
  channelSettings?: ChannelSettings;
  /** Who may sign up and how often; default: `HARNESS_SIGNUP` and `HARNESS_LIMIT_SIGNUPS_PER_MINUTE`. */
  signup?: SignupSettings;
  /** Wraps how cron runs start (tests simulate a crash between claiming a slot and submitting). */
  wrapCronLauncher?: (launcher: CronRunLauncher) => CronRunLauncher;
  /**
   * How background queues, the conversation lock and the cron scheduler work together:
   * in memory (default; one process owns the storage) or across replicas sharing PostgreSQL
   * (`postgresCoordination`, chosen by `serve` from the storage kind).
   */
  coordination?: Coordination;
  /** How completion webhooks are sent and retried; default: `HARNESS_WEBHOOK_*` over the defaults. */
  webhooks?: WebhookSettings;
  /** Timeouts, tool-list lifetime and pool bounds of MCP connections; default: `HARNESS_MCP_*` over the defaults. */
  mcp?: McpSettings;
  /** Open stream resumes and NATS replays per account and per turn; default: `HARNESS_LIMIT_RESUMES_*` over the defaults. */
  resumes?: ResumeLimits;
  /** How long `Idempotency-Key` answers are kept and how a retry waits; default: `HARNESS_IDEMPOTENCY_*` over the defaults. */
  idempotency?: IdempotencySettings;
  /** Messages that may wait for a conversation's running turn; default: `HARNESS_BUSY_*` over the defaults. */
  busy?: BusySettings;
}

/**
 * Everything the service does, wired once and shared by the account and agent services (and
 * by anything else that drives the core: workers, the scheduler, tests).
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
  turns: TurnRunner;
  asyncSettlement: AsyncSettlement;
  /** Settles async tool calls and dispatches the continuations their settlement claims. */
  asyncCompletions: AsyncToolCompletions;
  /** The chunks of streamed turns, for resuming a stream: in memory until the NATS side sets its JetStream log. */
  chunkLog: SwitchableChunkLog;
  /** Bounds the stream resumes and NATS replays open at once, per account and per turn (this process). */
  resumeAdmission: ResumeAdmission;
  continuations: ContinuationDispatcher;
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

export function createHarnessCore(options: HarnessCoreOptions): HarnessCore {
  const now = options.now ?? (() => new Date());
  const { tables } = options.infrastructure;
  const coordination = options.coordination ?? inMemoryCoordination();
  const logger = options.logger ?? silentLogger;
  const limits = options.limits ?? limitsFromEnvironment();
  const { budgets } = coordination;
  const rateLimiters = {
    turns: budgets.perMinute('turns', limits.turnRequestsPerMinute),
    completions: budgets.perMinute('completions', limits.completionRequestsPerMinute),
    webhooks: budgets.perMinute('webhooks', limits.webhookRequestsPerMinute),
  };
  const signup = options.signup ?? signupSettingsFromEnvironment();
  const outbound = new OutboundPolicy(options.outbound ?? outboundSettingsFromEnvironment());
  const cipher = new ConfigCipher(options.secrets.configEncryptionSecret);
  const accounts = new Accounts(new AccountsRepository(options.storage.table(tables.accounts)), options.secrets.adminSecret, now, signup, budgets.perMinute('signups', signup.perMinutePerClient));
  const agents = new Agents(new AgentsRepository(options.storage.table<StoredAgent>(tables.agents), cipher), now);
  agents.addConfigCheck((config) => checkAgentDestinations(outbound, config));
  const mcpSettings = options.mcp ?? mcpSettingsFromEnvironment();
  agents.addConfigCheck((config) => checkMcpServerCount(config.mcp, mcpSettings.maxServersPerAgent));
  const usageRepository = new UsageRepository(options.storage.table<UsageRow>(tables.usage));
  const budget = new DailyTokenBudget({ repository: usageRepository, defaultTokensPerDay: limits.tokensPerDay, accountTokensPerDay: (accountId) => accounts.tokensPerDay(accountId), now });
  const usage = new AccountUsage({ repository: usageRepository, budget, logger, now });
  const conversations = new ConversationsRepository(options.storage.table<ConversationRow>(tables.conversations));
  const requestsRepository = new AsyncRequestsRepository(options.storage.table<AsyncRequestRecord>(tables.events));
  const transitions = new AsyncRequestTransitions(requestsRepository, now);
  const asyncRepository = new AsyncToolResultsRepository(options.storage.table<AsyncTableRow>(tables.asyncToolResults));
  const asyncSettlement = new AsyncSettlement(asyncRepository, now);
  const continuations = new ContinuationDispatcher(logger);
  const asyncCompletions = new AsyncToolCompletions(asyncSettlement, continuations);
  const bubblewrap = options.bubblewrap ?? { available: false, reason: 'bubblewrap was not probed' };
  const sandboxSettings = options.sandboxSettings ?? sandboxSettingsFromEnvironment();
  // Its own sockets, ended when the service stops: an MCP server can then stop at once too.
  const mcpFetch = outbound.createOwnFetch('mcp');
  // Every JSON Schema someone else wrote (MCP tools' output schemas) is compiled here: linear-time patterns, bounded.
  const untrustedSchemas = new UntrustedJsonSchemas();
  // config.model.output's schemas are compiled when the agent is put: a 400 then, not at its first turn.
  agents.addConfigCheck((config) => void (config.model?.output && new StructuredOutput(config.model.output, untrustedSchemas, 'config.model.output')));
  const mcpConnections = new McpConnections(mcpSettings, mcpFetch.fetch, logger, untrustedSchemas);
  // The tools that come from their own config keys, never from config.tools.
  const toolSources = [
    sandboxToolSource({ bucketFolder: options.bucketFolder, bubblewrap, settings: sandboxSettings, cgroups: options.sandboxCgroups }),
    subagentToolSource(() => turns),
    skillsToolSource({ bucketFolder: options.bucketFolder }),
    mcpToolSource(mcpConnections, mcpSettings.maxServersPerAgent),
  ];
  const busy = new BusyConversations({
    runningTurns: coordination.runningTurns,
    inbox: new ConversationInbox(options.storage.table<InboxEntry>(tables.conversationInbox)),
    maxWaitingPerConversation: (options.busy ?? busySettingsFromEnvironment()).maxWaitingPerConversation,
  });
  const turns: TurnRunner = new TurnRunner({
    busy,
    toolOptions: () => ({ sources: toolSources }),
    agents,
    conversations,
    asyncResults: asyncRepository,
    admission: new TurnAdmission({ limits, accountCheck: accounts.requireEnabled, slots: budgets.slots('turns', limits.maxConcurrentTurnsPerAccount), tokenBudget: usage }),
    execution: {
      logger,
      now,
      defaultMaxSteps: 8,
      modelMaxRetries: options.modelMaxRetries ?? 2,
      maxAnswerCharacters: (options.turns ?? turnSettingsFromEnvironment()).maxAnswerCharacters,
      sameInvocationTimeoutMs: options.sameInvocationTimeoutMs ?? 300_000,
      asyncResults: asyncRepository,
      completions: asyncCompletions,
      runReports: transitions,
      save: (state, version) => saveConversation(conversations, state, version),
      usage,
      runningTurns: coordination.runningTurns,
      steering: busy,
    },
    logger,
    now,
    toolEnvironment: options.toolEnvironment ?? toolEnvironmentFrom(),
    maxConversationMessages: limits.maxConversationMessages,
    maxToolOutputBytes: limits.maxToolOutputBytes,
    locks: coordination.conversationLocks,
    schemas: untrustedSchemas,
    modelFetch: createModelFetch({ dispatcher: outbound.dispatcherFor('model'), ...(options.model ?? modelSettingsFromEnvironment()) }),
    ...(outbound.restricts ? { outboundFetch: outbound.fetchFor('workers') } : {}),
  });
  const asyncWorker = new BackgroundWorker({
    turns,
    transitions,
    asyncResults: asyncRepository,
    settlement: asyncSettlement,
    deliveries: continuations,
    logger,
    concurrency: options.asyncWorkerConcurrency ?? 4,
    queues: coordination.jobQueues,
  });
  continuations.sendTo((job) => asyncWorker.enqueue(job));
  const chunkLog = new SwitchableChunkLog(new MemoryChunkLog());
  // The continuation of an SSE turn has no open connection to stream to: it goes to the chunk
  // log, where GET .../stream finds it.
  continuations.register('sse', {
    stream: (group, turnId) => (chunk) => chunkLog.append({ accountId: group.accountId, agentId: group.agentId, conversationKey: group.conversationKey, turnId }, chunk),
  });
  const asyncRequests = new AsyncRequests({ agents, repository: requestsRepository, transitions, enqueue: (job) => asyncWorker.enqueue(job), accountCheck: accounts.requireEnabled, busy });
  const cancellation = new RunCancellation({
    runningTurns: coordination.runningTurns,
    requests: requestsRepository,
    transitions,
    conversations,
    settlement: asyncSettlement,
    agents,
    locks: coordination.conversationLocks,
    logger,
    now,
  });
  const channels = createChannels({
    table: options.storage.table<ChannelDelivery>(tables.channelDeliveries),
    agents,
    turns,
    continuations,
    logger,
    now,
    webhookLimiter: rateLimiters.webhooks,
    queues: coordination.jobQueues,
    accountCheck: accounts.requireEnabled,
    ...(outbound.restricts ? { fetch: outbound.fetchFor('channels') } : {}),
    settings: options.channelSettings ?? channelSettingsFromEnvironment(),
  });
  const completionWebhooks = new CompletionWebhooks({
    repository: new WebhookDeliveriesRepository(options.storage.table<WebhookDelivery>(tables.webhookDeliveries)),
    agents,
    rows: requestsRepository,
    view: viewAsyncRequest,
    accountCheck: accounts.requireEnabled,
    settings: options.webhooks ?? webhookSettingsFromEnvironment(),
    logger,
    now,
    fetch: outbound.fetchFor('webhooks'),
    queues: coordination.jobQueues,
    shared: coordination.kind === 'shared',
  });
  // The writer of each transition hears of it, once: a finish is recorded and queued there.
  transitions.onStatusChange((row) => completionWebhooks.statusChanged(row));
  const cronClock = options.cronClock ?? systemClock(now);
  const cronRepository = new CronJobsRepository(options.storage.table<CronTableRow>(tables.cronJobs));
  const cronLauncher = asyncTurnLauncher(asyncRequests, transitions);
  const cronScheduler = new CronScheduler({ repository: cronRepository, launcher: options.wrapCronLauncher?.(cronLauncher) ?? cronLauncher, clock: cronClock, logger, resyncIntervalMs: coordination.cronResyncIntervalMs });
  const cronJobs = new CronJobs({ repository: cronRepository, agents, scheduler: cronScheduler, now: () => cronClock.now() });
  agents.addDeletionGuard((accountId, agentId) => cronJobs.agentDeletionRefusal(accountId, agentId));
  const idempotency = new IdempotentRequests({ repository: new IdempotencyKeysRepository(options.storage.table<IdempotencyRecord>(tables.idempotencyKeys)), settings: options.idempotency ?? idempotencySettingsFromEnvironment(), now, logger });
  return {
    infrastructure: options.infrastructure,
    limits,
    rateLimiters,
    logger,
    accounts,
    agents,
    conversations,
    turns,
    asyncSettlement,
    asyncCompletions,
    chunkLog,
    resumeAdmission: new ResumeAdmission(options.resumes ?? resumeLimitsFromEnvironment()),
    continuations,
    asyncRequests,
    cancellation,
    runningTurns: coordination.runningTurns,
    asyncWorker,
    usage,
    channels,
    completionWebhooks,
    cronJobs,
    cronScheduler,
    mcpConnections,
    workspaceFiles: new WorkspaceFiles(agents, options.bucketFolder, sandboxSettings.diskQuotaBytes),
    idempotency,
    start: async () => {
      await coordination.start();
      const report = await recoverAsyncWork({
        repository: asyncRepository,
        completions: asyncCompletions,
        requests: requestsRepository,
        transitions,
        enqueue: (job) => asyncWorker.enqueue(job),
        logger,
        shared: coordination.kind === 'shared',
      });
      await channels.worker.recover();
      await completionWebhooks.start();
      // After recovery: runs it put back on the queue are found by the scheduler, not resubmitted.
      await cronScheduler.start();
      idempotency.start();
      return report;
    },
    stop: async () => {
      await cronScheduler.stop();
      idempotency.stop();
      await Promise.all([asyncWorker.stop(), channels.worker.stop()]);
      // After the workers: their last transitions may still announce finishes.
      await completionWebhooks.stop();
      await coordination.close();
      await mcpConnections.close();
      await mcpFetch.destroy();
      await outbound.close();
    },
  };
}
