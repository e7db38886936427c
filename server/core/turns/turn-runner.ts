import { randomUUID } from 'node:crypto';
import type { Tool, UserModelMessage } from 'ai';
import type { Agent } from '../agents/agent.js';
import type { Agents } from '../agents/agents.js';
import type { DispatchGroup } from '../async-tools/async-tool-result.js';
import type { AsyncToolResultsRepository } from '../async-tools/async-tool-results-repository.js';
import type { ConversationState } from '../conversations/conversation.js';
import type { ConversationsRepository } from '../conversations/conversations-repository.js';
import { ConflictError } from '../errors.js';
import type { Logger } from '../logger.js';
import { UntrustedJsonSchemas } from '../json-schema/untrusted-json-schemas.js';
import type { AgentMemory } from '../memory/agent-memory.js';
import { endUserOf } from '../memory/memory-scope.js';
import { createAgentModel } from '../model/language-model.js';
import { StructuredOutput } from '../structured-output/structured-output.js';
import type { BusyGate, BusyTicket, RunTicket } from './busy-gate.js';
import { defaultBusyMode } from '../agent-config/busy-mode.js';
import { handedOverTurn } from './handed-over-turn.js';
import { buildTools, type ToolSource } from '../tools/build-tools.js';
import { UnavailableTools } from '../tools/unavailable-tools.js';
import type { ToolContext, ToolEnvironment } from '../tools/tool-context.js';
import { transports } from '../transports/transports.js';
import type { RunTokenBudget } from '../usage/run-token-budget.js';
import { applyApprovalAnswers, closeInterruptedApprovals, denyOpenApprovals } from './approvals.js';
import { asyncResultsMessages, syntheticCallId, type SettledAsyncCall } from './async-results-message.js';
import { type ConversationLocks, conversationLockKey } from '../coordination/conversation-locks.js';
import { KeyedMutex } from '../coordination/keyed-mutex.js';
import type { TurnAdmission } from './turn-admission.js';
import { recordApprovalWaits, traceAdmission, traceTurn } from './turn-tracing.js';
import { type PassHolder, TurnExecution, type TurnExecutionServices } from './turn-execution.js';
import type { StartedTurn, TurnRequest } from './turn-types.js';

export type { ApprovalPolicy, DeniedApproval, StartedTurn, TurnLimits, TurnRequest, TurnResult } from './turn-types.js';

export interface TurnRunnerOptions {
  agents: Agents;
  conversations: ConversationsRepository;
  /** Where a continuation reads the settled calls of its group. */
  asyncResults: AsyncToolResultsRepository;
  admission: TurnAdmission;
  /** What the model passes use (async tools, status rows, the conversation write). */
  execution: TurnExecutionServices;
  logger: Logger;
  toolEnvironment: ToolEnvironment;
  now: () => Date;
  fetch?: typeof fetch;
  /**
   * The tool sources later features plug in (sandbox, subagents, skills, MCP), made once for
   * this runner: a source that runs nested turns (subagents) is given the runner itself.
   */
  toolSources?: (turns: Pick<TurnRunner, 'start'>) => ToolSource[];
  /** Refuse a user message once the conversation holds this many messages (409). */
  maxConversationMessages?: number;
  /** Bound on one tool output, in bytes. */
  maxToolOutputBytes?: number;
  /** The model client's `fetch` (default `modelFetch`): the outbound policy's, for the account's `baseURL`. */
  modelFetch?: typeof fetch;
  /** `fetch` for other destinations the account chose (a tool's `workerUrl`). Default: `fetch`. */
  outboundFetch?: typeof fetch;
  /** The conversation lock (default: in this process's memory). */
  locks?: ConversationLocks;
  /** Where the account's output schemas are compiled (the core's one instance; default: a new one). */
  schemas?: UntrustedJsonSchemas;
  /** What a user message does when its conversation has a turn running (none: it waits for the conversation, as `queue`). */
  busy?: BusyGate;
  /** The notes of `config.memory` given to the model with each turn (none: no memory). */
  memory?: Pick<AgentMemory, 'recall'>;
}

/**
 * What a turn does to the conversation before its first model pass; `ready` false ends it
 * awaiting approval. `messages`: the user messages a busy ticket gave the turn, when it had one.
 */
type Prepare = (state: ConversationState, turnId: string, timestamp: string, messages?: UserModelMessage[]) => { ready: boolean; announce?: SettledAsyncCall[] };

const supersededReason = 'The user sent a new message instead of answering this approval.';

/**
 * Runs agent turns: admits them, loads the conversation, applies the input (a user message,
 * approval answers, or the settled calls of a dispatch group), builds the tools by the
 * registry rules and hands the prepared turn to its execution. Turns of one conversation run
 * one at a time.
 */
export class TurnRunner {
  private readonly locks: ConversationLocks;
  private readonly schemas: UntrustedJsonSchemas;

  private readonly toolSources: ToolSource[];

  constructor(private readonly options: TurnRunnerOptions) {
    this.toolSources = options.toolSources?.(this) ?? [];
    this.locks = options.locks ?? new KeyedMutex();
    this.schemas = options.schemas ?? new UntrustedJsonSchemas();
  }

  /** Refuse input over the size limit (413), before anything is queued or stored. */
  checkInput(input: TurnRequest['input']): void {
    this.options.admission.checkInput(input);
  }

  /** A turn for a user message or approval answers. */
  start(request: TurnRequest): Promise<StartedTurn> {
    return traceTurn('message', request, () => this.startMessage(request));
  }

  private async startMessage(request: TurnRequest): Promise<StartedTurn> {
    const { admission } = this.options;
    // The account, the budget, the agent and the slot, read together (turn-admission.ts).
    const { agent, budget, giveBack } = await traceAdmission(() => admission.admit(request, () => this.options.agents.load(request.accountId, request.agentId)));
    let ticket: BusyTicket | undefined;
    try {
      const eventId = request.eventId ?? `evt_${randomUUID()}`;
      ticket = await this.admitBusy(agent, { ...request, eventId });
      if (ticket?.kind === 'handed-over') {
        giveBack();
        return handedOverTurn(request.conversationKey, ticket.applied, 'collected');
      }
      const started = await this.begin(agent, { ...request, eventId }, (state, turnId, timestamp, messages) => this.applyInput(state, request, turnId, timestamp, messages), budget, ticket);
      void started.result.finally(giveBack);
      return started;
    } catch (error) {
      if (ticket?.kind === 'run') ticket.leaveLine();
      giveBack();
      throw error;
    }
  }

  /** What a user message does when its conversation has a turn running (none for approval answers, or without busy handling). */
  private async admitBusy(agent: Agent, request: TurnRequest & { eventId: string }): Promise<BusyTicket | undefined> {
    const { busy } = this.options;
    if (!busy || request.input?.kind !== 'user') return undefined;
    const mode = request.busy ?? agent.config.busy ?? defaultBusyMode(request.transport);
    return busy.admit({ accountId: request.accountId, agentId: request.agentId, conversationKey: request.conversationKey, eventId: request.eventId, mode, message: request.input.message });
  }

  /**
   * The continuation of a dispatch group whose calls all settled: their results are injected
   * into the conversation and the model runs again, on the transport the group was made on.
   */
  startContinuation(group: DispatchGroup): Promise<StartedTurn> {
    const subject = { accountId: group.accountId, agentId: group.agentId, conversationKey: group.conversationKey, transport: group.delivery.transport, eventId: group.delivery.eventId };
    return traceTurn('continuation', subject, () => this.startContinuationTurn(group));
  }

  private async startContinuationTurn(group: DispatchGroup): Promise<StartedTurn> {
    const { agent, budget } = await traceAdmission(async () => {
      await this.options.admission.checkAccount(group.accountId);
      // Not refused here: a spent budget ends the continuation before its model call, closing its row.
      const budget = await this.options.admission.openBudget(group.accountId, undefined);
      return { agent: await this.options.agents.load(group.accountId, group.agentId), budget };
    });
    const request: TurnRequest = {
      accountId: group.accountId,
      agentId: group.agentId,
      conversationKey: group.conversationKey,
      transport: group.delivery.transport,
      approvalPolicy: transports[group.delivery.transport].approvals.policy,
      eventId: group.delivery.eventId,
      ...(group.delivery.replyTarget ? { replyTarget: group.delivery.replyTarget } : {}),
      // The run's own `model` settings and `instructions`, kept with the group it waited on.
      ...(group.delivery.overrides ? { overrides: group.delivery.overrides } : {}),
    };
    const { results } = await this.options.asyncResults.snapshot(group.groupId);
    const calls: SettledAsyncCall[] = results
      .filter((row) => group.resultIds.includes(row.key) && row.value.status !== 'processing')
      .map((row) => ({
        resultId: row.key,
        toolCallId: row.value.toolCallId,
        toolName: row.value.toolName,
        outcome: row.value.status === 'completed' ? { status: 'completed', response: row.value.response ?? {} } : { status: 'failed', error: row.value.error ?? 'failed' },
      }));
    return this.begin(agent, request, (state, turnId, timestamp) => {
      const injected = new Set(state.messages.flatMap((stored) => (stored.message.role === 'tool' ? stored.message.content.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : [])) : [])));
      const fresh = calls.filter((call) => !injected.has(syntheticCallId(call.resultId)));
      if (fresh.length > 0) for (const message of asyncResultsMessages(fresh)) state.messages.push({ message, turnId, createdAt: timestamp });
      return { ready: true, announce: fresh };
    }, budget);
  }

  private async begin(agent: Agent, request: TurnRequest, prepare: Prepare, budget: RunTokenBudget | undefined, ticket?: RunTicket): Promise<StartedTurn> {
    const { options } = this;
    const agentModel = createAgentModel(agent.config, { ...(options.modelFetch ? { fetch: options.modelFetch } : {}), ...(request.overrides?.model ? { overrides: request.overrides.model } : {}) });
    // Compiled before anything is stored: a schema that does not compile is a 400 that changes nothing.
    const outputConfig = request.overrides?.output ?? agent.config.model?.output;
    const output = outputConfig ? new StructuredOutput(outputConfig, this.schemas, request.overrides?.output ? 'output' : 'config.model.output') : undefined;
    const turnId = `turn_${randomUUID()}`;
    const eventId = request.eventId ?? `evt_${randomUUID()}`;
    const holder: PassHolder = {};
    const releaseLock = await this.locks.acquire(conversationLockKey(request.accountId, request.agentId, request.conversationKey));
    ticket?.leaveLine();
    const leaveRunning = options.busy?.running(request, eventId);
    const release = () => {
      leaveRunning?.();
      releaseLock();
    };
    try {
      // The busy ticket's messages, taken now that the turn holds the conversation: none left means another run took them.
      const ticketMessages = ticket ? await ticket.messages() : undefined;
      if (ticket && !ticketMessages) {
        release();
        return handedOverTurn(request.conversationKey, ticket.applied ?? { mode: 'steer', runEventId: eventId }, ticket.applied?.mode === 'collect' ? 'collected' : 'steered');
      }
      const toolContext: ToolContext = {
        accountId: request.accountId,
        agentId: request.agentId,
        conversationKey: request.conversationKey,
        turnId,
        transport: request.transport,
        user: endUserOf(request),
        environment: options.toolEnvironment,
        providerName: agentModel.providerName,
        providerTools: agentModel.providerTools,
        logger: options.logger,
        fetch: options.fetch ?? fetch,
        outboundFetch: options.outboundFetch ?? options.fetch ?? fetch,
        unavailableTools: new UnavailableTools(),
      };
      const wrapAsync = (name: string, original: Tool, toolConfig: Record<string, unknown>): Tool => ({
        ...original,
        execute: (input: unknown, toolOptions: Parameters<NonNullable<Tool['execute']>>[1]) => {
          if (!holder.current) throw new Error(`${name} was called outside a model pass.`);
          return holder.current.wrap(name, original, toolConfig).execute!(input, toolOptions);
        },
      }) as Tool;
      // Built before anything is stored: a config that cannot build tools changes nothing.
      const tools = await buildTools(agent.config, toolContext, {
        sources: this.toolSources,
        wrapAsync,
        ...(options.maxToolOutputBytes !== undefined ? { maxToolOutputBytes: options.maxToolOutputBytes } : {}),
      });
      const timestamp = options.now().toISOString();
      const loaded = await options.conversations.load(request.accountId, request.agentId, request.conversationKey, timestamp);
      const state = loaded.state;
      const maxMessages = options.maxConversationMessages;
      if (maxMessages !== undefined && request.input && state.messages.length >= maxMessages) {
        throw new ConflictError(`Conversation "${request.conversationKey}" has reached the limit of ${maxMessages} messages; continue in a new conversationKey.`);
      }
      const firstNewMessage = state.messages.length;
      closeInterruptedApprovals(state, turnId, timestamp);
      const { ready, announce } = prepare(state, turnId, timestamp, ticketMessages);
      state.updatedAt = timestamp;
      const memoryNotes = ready ? await options.memory?.recall(agent.config, request, state.messages) : undefined;
      // Approval answers are claimed on disk before any approved tool can run: that write is
      // what makes a second answer a 409 and the tool run at most once. A user message, or a
      // continuation's injected results (re-injected by recovery if lost), is stored with the
      // turn's first model pass instead, saving one fsync before the model call.
      const version = request.input?.kind === 'approvals' ? await options.execution.save(state, loaded.version) : loaded.version;
      const unavailableTools = toolContext.unavailableTools?.empty === false ? toolContext.unavailableTools : undefined;
      const execution = new TurnExecution(options.execution, { request, agent, agentModel, tools, ...(ticket?.applied ? { busy: ticket.applied } : {}), ...(unavailableTools ? { unavailableTools } : {}), ...(memoryNotes ? { memoryNotes } : {}), ...(budget ? { budget } : {}), ...(output ? { output } : {}), state, version, turnId, eventId, firstNewMessage, release, holder });
      return ready ? execution.run(announce ?? []) : execution.finishAwaitingApproval();
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Applies a user message or approval answers; true when the model should run now. */
  private applyInput(state: ConversationState, request: TurnRequest, turnId: string, now: string, messages?: UserModelMessage[]): { ready: boolean } {
    const input = request.input;
    if (!input) return { ready: true };
    if (input.kind === 'user') {
      denyOpenApprovals(state, () => supersededReason, turnId, now);
      for (const message of messages ?? [input.message]) state.messages.push({ message, turnId, createdAt: now });
      return { ready: true };
    }
    const toolMessage = applyApprovalAnswers(state, input.answers, now);
    recordApprovalWaits(state.approvals, input.answers.map((answer) => answer.approvalId));
    if (!toolMessage) return { ready: false };
    state.messages.push({ message: toolMessage, turnId, createdAt: now });
    return { ready: true };
  }
}
