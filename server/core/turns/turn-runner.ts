import { randomUUID } from 'node:crypto';
import { generateId, NoOutputGeneratedError, stepCountIs, streamText, type ModelMessage, type Tool, type ToolSet, type UIMessageChunk } from 'ai';
import { AccountDisabledError, type AccountStatusCheck } from '../accounts/account-status.js';
import type { Agent } from '../agents/agent.js';
import type { Agents } from '../agents/agents.js';
import { AsyncPass } from '../async-tools/async-pass.js';
import type { DeliveryMetadata, DispatchGroup } from '../async-tools/async-tool-result.js';
import type { AsyncToolResultsRepository } from '../async-tools/async-tool-results-repository.js';
import type { AsyncSettlement } from '../async-tools/async-settlement.js';
import type { ContinuationDispatcher } from '../async-tools/continuation-dispatcher.js';
import { pendingApprovals, type ApprovalRecord, type ConversationState, type PendingApprovalView } from '../conversations/conversation.js';
import type { ConversationsRepository } from '../conversations/conversations-repository.js';
import { ConflictError, InvalidRequestError, PayloadTooLargeError, RateLimitedError, VersionConflictError } from '../errors.js';
import type { PendingAsyncToolView } from '../events/event.js';
import type { EventsRepository } from '../events/events-repository.js';
import type { Logger } from '../logger.js';
import { createAgentModel, type AgentModel } from '../model/language-model.js';
import { collectSecretValues } from '../secrets/redaction.js';
import { ConditionFailedError } from '../storage/table-store.js';
import { buildTools, isEnabled, type BuildToolsOptions } from '../tools/build-tools.js';
import type { ToolContext, ToolEnvironment, TransportKind } from '../tools/tool-context.js';
import { applyApprovalAnswers, closeInterruptedApprovals, denyOpenApprovals, recordApprovalRequests } from './approvals.js';
import { asyncResultsMessages, asyncSettledChunk, syntheticCallId, type SettledAsyncCall } from './async-results-message.js';
import { KeyedMutex } from './keyed-mutex.js';
import { describeModelError } from './model-error.js';
import type { TurnInput, TurnStatus } from './turn-input.js';

/** How a turn treats a tool that needs approval: ask the caller, or deny (channels, cron). */
export type ApprovalPolicy = 'ask' | 'deny';

export interface TurnRequest {
  accountId: string;
  agentId: string;
  conversationKey: string;
  /** A user message or approval answers; none for a continuation after async tools. */
  input?: TurnInput;
  transport: TransportKind;
  approvalPolicy: ApprovalPolicy;
  /** The reason the model and the user are given when `approvalPolicy` is `deny`. */
  denialReason?: (toolName: string) => string;
  /** The status row this turn reports to (created when the turn waits for async tools). */
  eventId?: string;
  /** Where a continuation replies on non-SSE paths (NATS subject, channel chat...). */
  replyTarget?: Record<string, unknown>;
  /** Write the final result into the event row (`/async` turns and continuations). */
  settlesEvent?: boolean;
}

export interface DeniedApproval {
  toolName: string;
  reason: string;
}

export interface TurnResult {
  turnId: string;
  eventId: string;
  conversationKey: string;
  status: TurnStatus;
  /** The text the model wrote in this turn. */
  text: string;
  /** This turn's new messages, input included. */
  messages: ModelMessage[];
  pendingApprovals: PendingApprovalView[];
  pendingAsyncTools: PendingAsyncToolView[];
  /** Approvals this turn denied on its own (policy `deny`), for a channel to explain. */
  deniedApprovals: DeniedApproval[];
  /** Set when `status` is `failed`; `upstream` when the model failed. */
  error?: { kind: 'upstream' | 'internal'; message: string };
}

export interface StartedTurn {
  turnId: string;
  eventId: string;
  /** The AI SDK UI message stream of the turn. It runs to the end whether or not it is read. */
  stream: ReadableStream<UIMessageChunk>;
  result: Promise<TurnResult>;
}

/** What async tools need from the rest of the core. */
export interface AsyncToolDependencies {
  repository: AsyncToolResultsRepository;
  settlement: AsyncSettlement;
  events: EventsRepository;
  dispatcher: ContinuationDispatcher;
  /** Bound on waiting for same-invocation work in one turn (default 5 minutes). */
  sameInvocationTimeoutMs?: number;
}

export interface TurnRunnerOptions {
  agents: Agents;
  conversations: ConversationsRepository;
  asyncTools: AsyncToolDependencies;
  logger: Logger;
  toolEnvironment: ToolEnvironment;
  now?: () => Date;
  fetch?: typeof fetch;
  /** Tool sources later features plug in (sandbox, subagents, skills). */
  toolOptions?: (context: ToolContext) => BuildToolsOptions;
  defaultMaxSteps?: number;
  /** Retries of a failed model call (the AI SDK's `maxRetries`, default 2). */
  modelMaxRetries?: number;
  limits?: TurnLimits;
  /**
   * Refuses a disabled account. Every turn passes here (webhooks, cron, the async worker,
   * continuations, subagents, NATS), so no driver can forget the check.
   */
  accountCheck?: AccountStatusCheck;
  /** The model client's `fetch` (default `modelFetch`): the outbound policy's, for the account's `baseURL`. */
  modelFetch?: typeof fetch;
  /** `fetch` for other destinations the account chose (a tool's `workerUrl`). Default: `fetch`. */
  outboundFetch?: typeof fetch;
}

/** The limits a turn enforces (see `server/core/limits/service-limits.ts`). */
export interface TurnLimits {
  maxConcurrentTurnsPerAccount: number;
  maxMessageCharacters: number;
  maxConversationMessages: number;
  maxToolOutputBytes: number;
}

/** Transports where a person waits on the turn: these count against concurrent turns. */
const interactiveTransports = new Set<TransportKind>(['sse', 'json', 'nats']);

function messageCharacters(input: TurnInput | undefined): number {
  if (input?.kind !== 'user') return 0;
  const content = input.message.content;
  if (typeof content === 'string') return content.length;
  return content.reduce((total, part) => total + (part.type === 'text' ? part.text.length : 0), 0);
}

const defaultDenialReason = (toolName: string) => `${toolName} needs an approval, and approvals cannot be given here.`;
const supersededReason = 'The user sent a new message instead of answering this approval.';

function textOf(messages: ModelMessage[]): string {
  return messages
    .filter((message) => message.role === 'assistant')
    .map((message) => (typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('')))
    .join('');
}

/** Whether an agent has an enabled tool that hands its work to an external worker. */
export function usesExternalDispatch(agent: Agent): string | undefined {
  for (const [name, toolConfig] of Object.entries(agent.config.tools ?? {})) {
    if (isEnabled(toolConfig) && toolConfig.async === true && toolConfig.execution === 'external-dispatch') return name;
  }
  return undefined;
}

/** Points an async-wrapped tool at the async pass that is running when it is called. */
interface PassHolder {
  current?: AsyncPass;
}

/**
 * Runs agent turns: loads the conversation, applies the input (a user message or approval
 * answers), builds the tools by the registry rules, calls the model through `streamText`,
 * streams UI message chunks, and stores the new messages, approvals and async rows. Turns of
 * one conversation run one at a time.
 */
export class TurnRunner {
  private readonly locks = new KeyedMutex();
  private readonly activeTurns = new Map<string, number>();
  readonly now: () => Date;

  constructor(readonly options: TurnRunnerOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /** A turn for a user message or approval answers. */
  /** Refuse input over the size limit (413), before anything is queued or stored. */
  checkInput(input: TurnInput | undefined): void {
    const limits = this.options.limits;
    const characters = messageCharacters(input);
    if (limits && characters > limits.maxMessageCharacters) {
      throw new PayloadTooLargeError(`message has ${characters} characters; the limit is ${limits.maxMessageCharacters}`);
    }
  }

  async start(request: TurnRequest): Promise<StartedTurn> {
    const limits = this.options.limits;
    this.checkInput(request.input);
    await this.options.accountCheck?.(request.accountId);
    const agent = await this.options.agents.load(request.accountId, request.agentId);
    if (request.transport === 'sse') {
      const tool = usesExternalDispatch(agent);
      if (tool) {
        throw new InvalidRequestError(
          `config.tools.${tool} uses execution "external-dispatch", which an SSE request cannot wait for: send the request without Accept: text/event-stream (JSON), or use /agents/{agentId}/async or NATS`,
        );
      }
    }
    if (!limits || !interactiveTransports.has(request.transport)) {
      return this.begin(agent, request, (state, turnId, timestamp) => this.applyInput(state, request, turnId, timestamp));
    }
    const active = this.activeTurns.get(request.accountId) ?? 0;
    if (active >= limits.maxConcurrentTurnsPerAccount) {
      throw new RateLimitedError(`This account already has ${active} turns running; the limit is ${limits.maxConcurrentTurnsPerAccount}.`, 1);
    }
    this.activeTurns.set(request.accountId, active + 1);
    const finished = () => {
      const remaining = (this.activeTurns.get(request.accountId) ?? 1) - 1;
      if (remaining > 0) this.activeTurns.set(request.accountId, remaining);
      else this.activeTurns.delete(request.accountId);
    };
    try {
      const started = await this.begin(agent, request, (state, turnId, timestamp) => this.applyInput(state, request, turnId, timestamp));
      void started.result.finally(finished);
      return started;
    } catch (error) {
      finished();
      throw error;
    }
  }

  /**
   * The continuation of a dispatch group whose calls all settled: their results are injected
   * into the conversation and the model runs again, on the transport the group was made on.
   */
  async startContinuation(group: DispatchGroup): Promise<StartedTurn> {
    await this.refuseContinuationOfDisabledAccount(group);
    const agent = await this.options.agents.load(group.accountId, group.agentId);
    const request: TurnRequest = {
      accountId: group.accountId,
      agentId: group.agentId,
      conversationKey: group.conversationKey,
      transport: group.delivery.transport,
      approvalPolicy: ['channel', 'cron'].includes(group.delivery.transport) ? 'deny' : 'ask',
      eventId: group.delivery.eventId,
      ...(group.delivery.replyTarget ? { replyTarget: group.delivery.replyTarget } : {}),
      settlesEvent: true,
    };
    const { results } = await this.options.asyncTools.repository.snapshot(group.groupId);
    const calls: SettledAsyncCall[] = results
      .filter((row) => group.resultIds.includes(row.key) && row.value.status !== 'processing')
      .map((row) => ({
        resultId: row.key,
        toolCallId: row.value.toolCallId,
        toolName: row.value.toolName,
        outcome: row.value.status === 'completed' ? { status: 'completed', response: row.value.response ?? {} } : { status: 'failed', error: row.value.error ?? 'failed' },
      }));
    const started = await this.begin(agent, request, (state, turnId, timestamp) => {
      const injected = new Set(state.messages.flatMap((stored) => (stored.message.role === 'tool' ? stored.message.content.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : [])) : [])));
      const fresh = calls.filter((call) => !injected.has(syntheticCallId(call.resultId)));
      if (fresh.length > 0) for (const message of asyncResultsMessages(fresh)) state.messages.push({ message, turnId, createdAt: timestamp });
      return { ready: true, announce: fresh };
    });
    void started.result.then(() => this.options.asyncTools.settlement.finishContinuation(group.groupId)).catch((error: unknown) => {
      this.options.logger.error({ event: 'continuation', groupId: group.groupId, error: (error as Error).message }, 'could not mark the continuation finished');
    });
    return started;
  }

  /**
   * A disabled account's continuation does not run: its status row ends `failed` with the
   * reason and the group is marked finished, so recovery does not hand it over at every boot.
   */
  private async refuseContinuationOfDisabledAccount(group: DispatchGroup): Promise<void> {
    try {
      await this.options.accountCheck?.(group.accountId);
    } catch (error) {
      if (!(error instanceof AccountDisabledError)) throw error;
      const timestamp = this.now().toISOString();
      await this.options.asyncTools.events.update(group.delivery.eventId, (event) =>
        event.status === 'completed' || event.status === 'failed' ? undefined : { ...event, status: 'failed', error: error.message, updatedAt: timestamp },
      );
      await this.options.asyncTools.settlement.finishContinuation(group.groupId);
      throw error;
    }
  }

  private async begin(
    agent: Agent,
    request: TurnRequest,
    prepare: (state: ConversationState, turnId: string, timestamp: string) => { ready: boolean; announce?: SettledAsyncCall[] },
  ): Promise<StartedTurn> {
    const agentModel = createAgentModel(agent.config, this.options.modelFetch ? { fetch: this.options.modelFetch } : {});
    const turnId = `turn_${randomUUID()}`;
    const eventId = request.eventId ?? `evt_${randomUUID()}`;
    const holder: PassHolder = {};
    const release = await this.locks.acquire(JSON.stringify([request.accountId, request.agentId, request.conversationKey]));
    try {
      const toolContext: ToolContext = {
        accountId: request.accountId,
        agentId: request.agentId,
        conversationKey: request.conversationKey,
        turnId,
        transport: request.transport,
        environment: this.options.toolEnvironment,
        provider: agentModel.provider,
        providerApi: agentModel.api,
        logger: this.options.logger,
        fetch: this.options.fetch ?? fetch,
        outboundFetch: this.options.outboundFetch ?? this.options.fetch ?? fetch,
      };
      const wrapAsync = (name: string, original: Tool, toolConfig: Record<string, unknown>): Tool => ({
        ...original,
        execute: (input: unknown, options: Parameters<NonNullable<Tool['execute']>>[1]) => {
          if (!holder.current) throw new Error(`${name} was called outside a model pass.`);
          return holder.current.wrap(name, original, toolConfig).execute!(input, options);
        },
      }) as Tool;
      // Built before anything is stored: a config that cannot build tools changes nothing.
      const tools = await buildTools(agent.config, toolContext, {
        ...this.options.toolOptions?.(toolContext),
        wrapAsync,
        ...(this.options.limits ? { maxToolOutputBytes: this.options.limits.maxToolOutputBytes } : {}),
      });
      const timestamp = this.now().toISOString();
      const loaded = await this.options.conversations.load(request.accountId, request.agentId, request.conversationKey, timestamp);
      const state = loaded.state;
      const maxMessages = this.options.limits?.maxConversationMessages;
      if (maxMessages !== undefined && request.input && state.messages.length >= maxMessages) {
        throw new ConflictError(`Conversation "${request.conversationKey}" has reached the limit of ${maxMessages} messages; continue in a new conversationKey.`);
      }
      const firstNewMessage = state.messages.length;
      closeInterruptedApprovals(state, turnId, timestamp);
      const { ready, announce } = prepare(state, turnId, timestamp);
      state.updatedAt = timestamp;
      // Approval answers are claimed on disk before any approved tool can run: that write is
      // what makes a second answer a 409 and the tool run at most once. A user message, or a
      // continuation's injected results (re-injected by recovery if lost), is stored with the
      // turn's first model pass instead, saving one fsync before the model call.
      const version = request.input?.kind === 'approvals' ? await this.save(state, loaded.version) : loaded.version;
      const execution = new TurnExecution({ runner: this, request, agent, agentModel, tools, state, version, turnId, eventId, firstNewMessage, release, holder });
      const started = ready ? execution.run(announce ?? []) : execution.finishAwaitingApproval();
      if (request.settlesEvent) void started.result.then((result) => this.settleEvent(result)).catch(() => undefined);
      return started;
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Applies a user message or approval answers; true when the model should run now. */
  private applyInput(state: ConversationState, request: TurnRequest, turnId: string, now: string): { ready: boolean } {
    const input = request.input;
    if (!input) return { ready: true };
    if (input.kind === 'user') {
      denyOpenApprovals(state, () => supersededReason, turnId, now);
      state.messages.push({ message: input.message, turnId, createdAt: now });
      return { ready: true };
    }
    const toolMessage = applyApprovalAnswers(state, input.answers, now);
    if (!toolMessage) return { ready: false };
    state.messages.push({ message: toolMessage, turnId, createdAt: now });
    return { ready: true };
  }

  /** Report a finished turn on its event row, unless it waits for async tools again. */
  private async settleEvent(result: TurnResult): Promise<void> {
    if (result.status === 'waiting_async_tools') return;
    const timestamp = this.now().toISOString();
    await this.options.asyncTools.events.update(result.eventId, (event) => ({
      ...event,
      status: result.status,
      result: { text: result.text, messages: result.messages },
      pendingApprovals: result.pendingApprovals,
      pendingAsyncTools: [],
      ...(result.error ? { error: result.error.message } : {}),
      updatedAt: timestamp,
    }));
  }

  /** @internal Conditional write of the conversation; another writer in between is a 409. */
  async save(state: ConversationState, version: number | null): Promise<number> {
    try {
      return await this.options.conversations.save(state, version);
    } catch (error) {
      if (error instanceof ConditionFailedError) throw new VersionConflictError(`Conversation "${state.conversationKey}"`);
      throw error;
    }
  }
}

interface TurnExecutionParts {
  runner: TurnRunner;
  request: TurnRequest;
  agent: Agent;
  agentModel: AgentModel;
  tools: ToolSet;
  state: ConversationState;
  version: number | null;
  turnId: string;
  eventId: string;
  firstNewMessage: number;
  release: () => void;
  holder: PassHolder;
}

/** One running turn: the model passes, the stream, and the final result. */
class TurnExecution {
  private version: number | null;
  private readonly denied: DeniedApproval[] = [];
  private readonly waitingOn: PendingAsyncToolView[] = [];
  private failure: TurnResult['error'];
  private readonly secrets: string[];

  constructor(private readonly parts: TurnExecutionParts) {
    this.version = parts.version;
    this.secrets = collectSecretValues(parts.agent.config);
  }

  private result(status: TurnStatus): TurnResult {
    const messages = this.parts.state.messages.slice(this.parts.firstNewMessage).map((stored) => stored.message);
    return {
      turnId: this.parts.turnId,
      eventId: this.parts.eventId,
      conversationKey: this.parts.request.conversationKey,
      status,
      text: textOf(messages),
      messages,
      pendingApprovals: pendingApprovals(this.parts.state),
      pendingAsyncTools: status === 'waiting_async_tools' ? this.waitingOn : [],
      deniedApprovals: this.denied,
      ...(this.failure ? { error: this.failure } : {}),
    };
  }

  private finishChunk(result: TurnResult): UIMessageChunk {
    return {
      type: 'finish',
      messageMetadata: {
        status: result.status,
        turnId: result.turnId,
        eventId: result.eventId,
        pendingApprovals: result.pendingApprovals,
        ...(result.pendingAsyncTools.length > 0 ? { pendingAsyncTools: result.pendingAsyncTools } : {}),
      },
    };
  }

  /** Answers were recorded but others of the same step are still open. */
  finishAwaitingApproval(): StartedTurn {
    this.parts.release();
    const result = this.result('awaiting_approval');
    const finish = this.finishChunk(result);
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        controller.enqueue({ type: 'start' });
        controller.enqueue(finish);
        controller.close();
      },
    });
    return { turnId: this.parts.turnId, eventId: this.parts.eventId, stream, result: Promise.resolve(result) };
  }

  run(announce: SettledAsyncCall[]): StartedTurn {
    let resolveResult!: (result: TurnResult) => void;
    const result = new Promise<TurnResult>((resolve) => {
      resolveResult = resolve;
    });
    // One stream layer of our own (rather than `createUIMessageStream`, which adds a
    // transform per chunk): every chunk of every model pass is enqueued straight into it.
    let controller!: ReadableStreamDefaultController<UIMessageChunk>;
    const stream = new ReadableStream<UIMessageChunk>({
      start(streamController) {
        controller = streamController;
      },
    });
    const write = (chunk: UIMessageChunk) => {
      try {
        controller.enqueue(chunk);
      } catch {
        // The reader cancelled the stream; the turn still runs to its end and is stored.
      }
    };
    const execute = async () => {
      let final: TurnResult | undefined;
      let claimed: DispatchGroup | undefined;
      try {
        write({ type: 'start', messageId: generateId() });
        for (const call of announce) write(asyncSettledChunk(call));
        const outcome = await this.passes(write);
        claimed = outcome.claimed;
        final = this.result(outcome.status);
        write(this.finishChunk(final));
      } catch (error) {
        this.parts.runner.options.logger.error({ event: 'turn', turnId: this.parts.turnId, error: (error as Error).message }, 'turn failed');
        this.failure ??= { kind: 'internal', message: 'The turn failed inside the service; it has been logged.' };
        final = this.result('failed');
        write({ type: 'error', errorText: this.failure.message });
        write(this.finishChunk(final));
      } finally {
        this.parts.release();
        resolveResult(final ?? this.result('failed'));
        try {
          controller.close();
        } catch {
          // Already cancelled by the reader.
        }
      }
      // After the lock is released: the continuation takes the same conversation's lock.
      if (claimed) this.parts.runner.options.asyncTools.dispatcher.dispatch(claimed);
    };
    void execute();
    return { turnId: this.parts.turnId, eventId: this.parts.eventId, stream, result };
  }

  /** Model passes until the turn completes, fails, waits for a person, or waits for async tools. */
  private async passes(write: (chunk: UIMessageChunk) => void): Promise<{ status: TurnStatus; claimed?: DispatchGroup }> {
    const { request, agent, agentModel, tools, state, turnId, holder } = this.parts;
    const runner = this.parts.runner;
    const { logger } = runner.options;
    const maxSteps = agent.config.maxSteps ?? runner.options.defaultMaxSteps ?? 8;
    const asyncTools = runner.options.asyncTools;
    const deadline = Date.now() + (asyncTools.sameInvocationTimeoutMs ?? 300_000);
    const delivery: DeliveryMetadata = { transport: request.transport, eventId: this.parts.eventId, ...(request.replyTarget ? { replyTarget: request.replyTarget } : {}) };
    for (let pass = 0; pass < maxSteps * 4; pass += 1) {
      const asyncPass = new AsyncPass(
        { accountId: request.accountId, agentId: request.agentId, conversationKey: request.conversationKey, turnId, delivery },
        asyncTools.repository,
        asyncTools.settlement,
        logger,
        runner.now,
      );
      holder.current = asyncPass;
      let modelError: unknown;
      // The messages come from `onFinish`: reading `result.response` would tee the model's
      // stream once more and run every chunk through a second branch.
      let responseMessages: ModelMessage[] | undefined;
      const stream = streamText({
        model: agentModel.model,
        ...(agent.config.system ? { system: agent.config.system } : {}),
        messages: state.messages.map((stored) => stored.message),
        tools,
        stopWhen: stepCountIs(maxSteps),
        maxRetries: runner.options.modelMaxRetries ?? 2,
        ...(agentModel.providerOptions ? { providerOptions: agentModel.providerOptions } : {}),
        onError: ({ error }) => {
          modelError = error;
        },
        onFinish: ({ response }) => {
          responseMessages = response.messages;
        },
      });
      const reader = stream.toUIMessageStream({ sendStart: false, sendFinish: false, sendSources: true, onError: (error) => describeModelError(error, this.secrets) }).getReader();
      for (let next = await reader.read(); !next.done; next = await reader.read()) write(next.value);
      // No `onFinish` and no error reported: the model produced no step at all.
      if (responseMessages === undefined) modelError ??= new NoOutputGeneratedError({ message: 'No output generated. Check the stream for errors.' });
      let timestamp = runner.now().toISOString();
      for (const message of responseMessages ?? []) state.messages.push({ message, turnId, createdAt: timestamp });
      const requested = recordApprovalRequests(state, responseMessages ?? [], turnId, timestamp);
      if (modelError !== undefined) {
        this.failure = { kind: 'upstream', message: describeModelError(modelError, this.secrets) };
        logger.warn({ event: 'turn', turnId, agentId: request.agentId, error: this.failure.message }, 'model call failed');
      }
      // Same-invocation work is awaited before anything else, even when the pass failed, so
      // its rows end settled; its results go to the model in the next pass.
      const settled = asyncPass.hasPendingInvocations() ? await asyncPass.waitForInvocations(this.failure ? Date.now() : deadline) : [];
      timestamp = runner.now().toISOString();
      if (settled.length > 0 && !this.failure) {
        for (const message of asyncResultsMessages(settled)) state.messages.push({ message, turnId, createdAt: timestamp });
      }
      const denied = this.failure || request.approvalPolicy === 'ask' ? [] : this.denyAll(requested, turnId, timestamp);
      state.updatedAt = timestamp;
      this.version = await runner.save(state, this.version);
      for (const call of settled) write(asyncSettledChunk(call));
      if (this.failure) return { status: 'failed' };
      for (const approval of denied) {
        write({ type: 'data-approval-denied', data: { toolCallId: approval.toolCallId, toolName: approval.toolName, reason: approval.reason ?? '' } } as UIMessageChunk);
      }
      if (asyncPass.hasExternalCalls()) return this.waitForExternal(asyncPass);
      if (settled.length > 0 || denied.length > 0) continue;
      return { status: requested.length > 0 ? 'awaiting_approval' : 'completed' };
    }
    throw new Error(`The turn was stopped after ${maxSteps * 4} model passes.`);
  }

  /**
   * The pass made external calls: make sure its status row says so, then seal the group. The
   * seal checks readiness itself (siblings may have settled already) and may claim the
   * continuation, which runs once this turn has released the conversation.
   */
  private async waitForExternal(asyncPass: AsyncPass): Promise<{ status: TurnStatus; claimed?: DispatchGroup }> {
    const { runner, request } = this.parts;
    const asyncTools = runner.options.asyncTools;
    const timestamp = runner.now().toISOString();
    for (const row of asyncPass.createdRows()) {
      if (row.execution === 'external-dispatch') {
        this.waitingOn.push({ resultId: row.resultId, toolCallId: row.toolCallId, toolName: row.toolName, execution: row.execution, status: 'processing' });
      }
    }
    await asyncTools.events.ensure({
      eventId: this.parts.eventId,
      accountId: request.accountId,
      agentId: request.agentId,
      conversationKey: request.conversationKey,
      transport: request.transport,
      status: 'waiting_async_tools',
      pendingAsyncTools: this.waitingOn,
      createdAt: timestamp,
      updatedAt: timestamp,
    });
    await asyncTools.events.update(this.parts.eventId, (event) =>
      event.status === 'completed' || event.status === 'failed' ? undefined : { ...event, status: 'waiting_async_tools', pendingAsyncTools: this.waitingOn, updatedAt: timestamp },
    );
    const sealed = await asyncTools.settlement.seal(asyncPass.groupId);
    return { status: 'waiting_async_tools', ...(sealed.claimed ? { claimed: sealed.group } : {}) };
  }

  private denyAll(requested: ApprovalRecord[], turnId: string, timestamp: string): ApprovalRecord[] {
    if (requested.length === 0) return [];
    const reasonFor = this.parts.request.denialReason ?? defaultDenialReason;
    const denied = denyOpenApprovals(this.parts.state, (approval) => reasonFor(approval.toolName), turnId, timestamp);
    for (const approval of denied) this.denied.push({ toolName: approval.toolName, reason: approval.reason ?? '' });
    return denied;
  }
}
