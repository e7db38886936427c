import type { AsyncTableRow } from '../async-tools/async-tool-result.js';
import { AsyncToolCompletions } from '../async-tools/async-tool-completions.js';
import { AsyncToolResultsRepository } from '../async-tools/async-tool-results-repository.js';
import { AsyncSettlement } from '../async-tools/async-settlement.js';
import type { ChannelDelivery } from '../channels/channel-deliveries-repository.js';
import { createChannels } from '../channels/channels.js';
import { CompletionWebhooks } from '../completion-webhooks/completion-webhooks.js';
import { WebhookDeliveriesRepository } from '../completion-webhooks/webhook-deliveries-repository.js';
import type { WebhookDelivery } from '../completion-webhooks/webhook-delivery.js';
import { type ConversationRow, ConversationsRepository } from '../conversations/conversations-repository.js';
import { createModelFetch } from '../model/model-fetch.js';
import { createAgentModel } from '../model/language-model.js';
import { ContextManager } from '../context/context-manager.js';
import { ConversationCompaction } from '../context/conversation-compaction.js';
import { mcpToolSource } from '../mcp/mcp-tool-source.js';
import { AgentMemory } from '../memory/agent-memory.js';
import type { MemoryRow } from '../memory/memory-note.js';
import { MemoryNotesRepository } from '../memory/memory-notes-repository.js';
import { memoryToolSource } from '../memory/memory-tool-source.js';
import { AsyncRequests, viewAsyncRequest } from '../runs/async-requests.js';
import { BackgroundWorker } from '../runs/background-worker.js';
import { BusyConversations } from '../runs/busy-conversations.js';
import { ContinuationDispatcher, type ContinuationDeliveries } from '../runs/continuation-dispatcher.js';
import { ConversationInbox, type InboxEntry } from '../runs/conversation-inbox.js';
import { RunCancellation } from '../runs/run-cancellation.js';
import { RunQueue } from '../runs/run-queue.js';
import type { AsyncRequestRecord } from '../runs/status-row.js';
import { AsyncRequestTransitions } from '../runs/status-row-transitions.js';
import { AsyncRequestsRepository } from '../runs/status-rows-repository.js';
import type { BubblewrapStatus } from '../sandbox/bubblewrap-probe.js';
import type { CgroupSupport } from '../sandbox/sandbox-cgroups.js';
import { sandboxToolSource } from '../sandbox/sandbox-tool-source.js';
import { skillsToolSource } from '../skills/load-skill-tool.js';
import { subagentToolSource } from '../subagents/run-subagent-tool.js';
import { MemoryChunkLog } from '../turns/memory-chunk-log.js';
import { saveConversation } from '../turns/save-conversation.js';
import { SwitchableChunkLog } from '../turns/switchable-chunk-log.js';
import { TurnAdmission } from '../turns/turn-admission.js';
import { TurnRunner } from '../turns/turn-runner.js';
import type { AccountsAndAgents, CoreInputs } from './build-accounts-and-agents.js';

/** What the run side needs beyond the settings: what `serve` probed, and the knobs tests turn. */
export interface RunInputs {
  /** Host folder of the filesystem bucket; workspaces and skill files live there. */
  bucketFolder?: string;
  bubblewrap: BubblewrapStatus;
  sandboxCgroups?: CgroupSupport;
  /** Retries of a failed model call (default 2; tests use 0). */
  modelMaxRetries: number;
  /** Bound on same-invocation async work in one turn. */
  sameInvocationTimeoutMs: number;
  /** Concurrent jobs of the background worker. */
  asyncWorkerConcurrency: number;
}

/**
 * A run's parts, each built with what it uses, in the order they depend on each other: the
 * status rows (whose every change completion webhooks hear of), the async tools, the run
 * queue (where a claimed continuation and the background worker meet, so neither needs the
 * other), the turn runner, the channels, and the background worker with each transport's
 * continuation delivery.
 */
export function buildRuns(inputs: CoreInputs, shared: AccountsAndAgents, options: RunInputs) {
  const { storage, settings, coordination, logger, now } = inputs;
  const { tables } = inputs.infrastructure;
  const { agents, accounts, usage, outbound, mcpConnections, untrustedSchemas, rateLimiters } = shared;
  const { limits } = settings;
  const conversations = new ConversationsRepository(storage.table<ConversationRow>(tables.conversations));
  const requestsRepository = new AsyncRequestsRepository(storage.table<AsyncRequestRecord>(tables.events));
  const completionWebhooks = new CompletionWebhooks({
    repository: new WebhookDeliveriesRepository(storage.table<WebhookDelivery>(tables.webhookDeliveries)),
    agents,
    rows: requestsRepository,
    view: viewAsyncRequest,
    accountCheck: accounts.requireEnabled,
    settings: settings.webhooks,
    logger,
    now,
    fetch: outbound.fetchFor('webhooks'),
    queues: coordination.jobQueues,
    shared: coordination.kind === 'shared',
  });
  // The writer of each transition tells completion webhooks, once: a finish is recorded and queued there.
  const transitions = new AsyncRequestTransitions(requestsRepository, now, (row) => completionWebhooks.statusChanged(row));
  const asyncRepository = new AsyncToolResultsRepository(storage.table<AsyncTableRow>(tables.asyncToolResults));
  const asyncSettlement = new AsyncSettlement(asyncRepository, now);
  const runQueue = new RunQueue({ queues: coordination.jobQueues, concurrency: options.asyncWorkerConcurrency });
  const continuations = new ContinuationDispatcher(runQueue, logger);
  const asyncCompletions = new AsyncToolCompletions(asyncSettlement, continuations);
  const busy = new BusyConversations({
    runningTurns: coordination.runningTurns,
    inbox: new ConversationInbox(storage.table<InboxEntry>(tables.conversationInbox)),
    maxWaitingPerConversation: settings.busy.maxWaitingPerConversation,
  });
  const modelFetch = createModelFetch({ dispatcher: outbound.dispatcherFor('model'), ...settings.model });
  // One context manager: its token calibration learns from every turn, and on-demand compaction uses it too.
  const context = new ContextManager({
    maxRetries: options.modelMaxRetries,
    createSummaryModel: (config, modelId) => createAgentModel({ ...config, model: { ...config.model!, id: modelId, fallbacks: undefined } }, { fetch: modelFetch }),
  });
  const memory = new AgentMemory(new MemoryNotesRepository(storage.table<MemoryRow>(tables.memoryNotes), now), settings.memory);
  const turns = new TurnRunner({
    busy,
    memory,
    // The tools that come from their own config keys, never from config.tools.
    toolSources: (runner) => [
      sandboxToolSource({ bucketFolder: options.bucketFolder, bubblewrap: options.bubblewrap, settings: settings.sandboxSettings, cgroups: options.sandboxCgroups }),
      subagentToolSource(runner),
      skillsToolSource({ bucketFolder: options.bucketFolder }),
      mcpToolSource(mcpConnections, settings.mcp.maxServersPerAgent),
      memoryToolSource(memory),
    ],
    agents,
    conversations,
    asyncResults: asyncRepository,
    admission: new TurnAdmission({ limits, accountCheck: accounts.requireEnabled, slots: coordination.budgets.slots('turns', limits.maxConcurrentTurnsPerAccount), tokenBudget: usage }),
    execution: {
      logger,
      now,
      defaultMaxSteps: 8,
      modelMaxRetries: options.modelMaxRetries,
      maxAnswerCharacters: settings.turns.maxAnswerCharacters,
      sameInvocationTimeoutMs: options.sameInvocationTimeoutMs,
      asyncResults: asyncRepository,
      completions: asyncCompletions,
      runReports: transitions,
      save: (state, version) => saveConversation(conversations, state, version),
      usage,
      runningTurns: coordination.runningTurns,
      steering: busy,
      context,
    },
    logger,
    now,
    toolEnvironment: settings.toolEnvironment,
    maxConversationMessages: limits.maxConversationMessages,
    maxToolOutputBytes: limits.maxToolOutputBytes,
    locks: coordination.conversationLocks,
    schemas: untrustedSchemas,
    modelFetch,
    ...(outbound.restricts ? { outboundFetch: outbound.fetchFor('workers') } : {}),
  });
  const chunkLog = new SwitchableChunkLog(new MemoryChunkLog());
  const channels = createChannels({
    table: storage.table<ChannelDelivery>(tables.channelDeliveries),
    agents,
    turns,
    logger,
    now,
    webhookLimiter: rateLimiters.webhooks,
    queues: coordination.jobQueues,
    accountCheck: accounts.requireEnabled,
    ...(outbound.restricts ? { fetch: outbound.fetchFor('channels') } : {}),
    settings: settings.channelSettings,
  });
  // Where each transport's continuation goes. NATS adds its own when its gateway starts (after the core).
  const continuationDeliveries: ContinuationDeliveries = {
    // An SSE turn's continuation has no open connection to stream to: it goes to the chunk log, where GET .../stream finds it.
    sse: { stream: (group, turnId) => (chunk) => chunkLog.append({ accountId: group.accountId, agentId: group.agentId, conversationKey: group.conversationKey, turnId }, chunk) },
    channel: channels.worker.continuationDelivery,
  };
  const asyncWorker = new BackgroundWorker({ turns, transitions, asyncResults: asyncRepository, settlement: asyncSettlement, deliveries: continuationDeliveries, logger, queue: runQueue });
  const asyncRequests = new AsyncRequests({ agents, repository: requestsRepository, transitions, enqueue: (job) => runQueue.push(job), accountCheck: accounts.requireEnabled, busy });
  const cancellation = new RunCancellation({ runningTurns: coordination.runningTurns, requests: requestsRepository, transitions, conversations, settlement: asyncSettlement, agents, locks: coordination.conversationLocks, logger, now });
  const compaction = new ConversationCompaction({ agents, conversations, runningTurns: coordination.runningTurns, locks: coordination.conversationLocks, context, createModel: (config) => createAgentModel(config, { fetch: modelFetch }), usage, logger, now });
  return { compaction, conversations, requestsRepository, transitions, asyncRepository, asyncSettlement, asyncCompletions, runQueue, continuationDeliveries, turns, chunkLog, channels, asyncWorker, asyncRequests, cancellation, completionWebhooks };
}

export type Runs = ReturnType<typeof buildRuns>;
