import { randomUUID } from 'node:crypto';
import { createUIMessageStream, stepCountIs, streamText, type ModelMessage, type ToolSet, type UIMessageChunk } from 'ai';
import type { Agent } from '../agents/agent.js';
import type { Agents } from '../agents/agents.js';
import { pendingApprovals, type ApprovalRecord, type ConversationState, type PendingApprovalView } from '../conversations/conversation.js';
import type { ConversationsRepository } from '../conversations/conversations-repository.js';
import { VersionConflictError } from '../errors.js';
import type { Logger } from '../logger.js';
import { createAgentModel, type AgentModel } from '../model/language-model.js';
import { collectSecretValues } from '../secrets/redaction.js';
import { ConditionFailedError } from '../storage/table-store.js';
import { buildTools, type BuildToolsOptions } from '../tools/build-tools.js';
import type { ToolContext, ToolEnvironment, TransportKind } from '../tools/tool-context.js';
import { applyApprovalAnswers, closeInterruptedApprovals, denyOpenApprovals, recordApprovalRequests } from './approvals.js';
import { KeyedMutex } from './keyed-mutex.js';
import { describeModelError } from './model-error.js';
import type { TurnInput, TurnStatus } from './turn-input.js';

/** How a turn treats a tool that needs approval: ask the caller, or deny (channels, cron). */
export type ApprovalPolicy = 'ask' | 'deny';

export interface TurnRequest {
  accountId: string;
  agentId: string;
  conversationKey: string;
  input: TurnInput;
  transport: TransportKind;
  approvalPolicy: ApprovalPolicy;
  /** The reason the model and the user are given when `approvalPolicy` is `deny`. */
  denialReason?: (toolName: string) => string;
}

export interface DeniedApproval {
  toolName: string;
  reason: string;
}

export interface TurnResult {
  turnId: string;
  conversationKey: string;
  status: TurnStatus;
  /** The text the model wrote in this turn. */
  text: string;
  /** This turn's new messages, input included. */
  messages: ModelMessage[];
  pendingApprovals: PendingApprovalView[];
  pendingAsyncTools: unknown[];
  /** Approvals this turn denied on its own (policy `deny`), for a channel to explain. */
  deniedApprovals: DeniedApproval[];
  /** Set when `status` is `failed`; `upstream` when the model failed. */
  error?: { kind: 'upstream' | 'internal'; message: string };
}

export interface StartedTurn {
  turnId: string;
  /** The AI SDK UI message stream of the turn. It runs to the end whether or not it is read. */
  stream: ReadableStream<UIMessageChunk>;
  result: Promise<TurnResult>;
}

export interface TurnRunnerOptions {
  agents: Agents;
  conversations: ConversationsRepository;
  logger: Logger;
  toolEnvironment: ToolEnvironment;
  now?: () => Date;
  fetch?: typeof fetch;
  /** Hooks later features plug in: the async coordinator's wrapper, sandbox/subagent/skill sources. */
  toolOptions?: (context: ToolContext) => BuildToolsOptions;
  defaultMaxSteps?: number;
  /** Retries of a failed model call (the AI SDK's `maxRetries`, default 2). */
  modelMaxRetries?: number;
}

const defaultDenialReason = (toolName: string) => `${toolName} needs an approval, and approvals cannot be given here.`;
const supersededReason = 'The user sent a new message instead of answering this approval.';

function textOf(messages: ModelMessage[]): string {
  return messages
    .filter((message) => message.role === 'assistant')
    .map((message) => (typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('')))
    .join('');
}

/**
 * Runs agent turns: loads the conversation, applies the input (a user message or approval
 * answers), builds the tools by the registry rules, calls the model through `streamText`,
 * streams UI message chunks, and stores the new messages and approvals. Turns of one
 * conversation run one at a time.
 */
export class TurnRunner {
  private readonly locks = new KeyedMutex();
  private readonly now: () => Date;

  constructor(private readonly options: TurnRunnerOptions) {
    this.now = options.now ?? (() => new Date());
  }

  async start(request: TurnRequest): Promise<StartedTurn> {
    const agent = await this.options.agents.load(request.accountId, request.agentId);
    const agentModel = createAgentModel(agent.config);
    const turnId = `turn_${randomUUID()}`;
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
      };
      // Built before anything is stored: a config that cannot build tools changes nothing.
      const tools = await buildTools(agent.config, toolContext, this.options.toolOptions?.(toolContext));
      const timestamp = this.now().toISOString();
      const loaded = await this.options.conversations.load(request.accountId, request.agentId, request.conversationKey, timestamp);
      const state = loaded.state;
      const firstNewMessage = state.messages.length;
      closeInterruptedApprovals(state, turnId, timestamp);
      const readyToRun = this.applyInput(state, request, turnId, timestamp);
      state.updatedAt = timestamp;
      // Approval answers are claimed on disk before any approved tool can run: that write is
      // what makes a second answer a 409 and the tool run at most once. A user message is
      // stored with the turn's first model pass instead, saving one fsync per turn.
      const version = request.input.kind === 'approvals' ? await this.save(state, loaded.version) : loaded.version;
      const turn = new TurnExecution({ runner: this, request, agent, agentModel, tools, state, version, turnId, firstNewMessage, release });
      return readyToRun ? turn.run() : turn.finishAwaitingApproval();
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Applies the input to the state; true when the model should run now. */
  private applyInput(state: ConversationState, request: TurnRequest, turnId: string, now: string): boolean {
    if (request.input.kind === 'user') {
      denyOpenApprovals(state, () => supersededReason, turnId, now);
      state.messages.push({ message: request.input.message, turnId, createdAt: now });
      return true;
    }
    const toolMessage = applyApprovalAnswers(state, request.input.answers, now);
    if (!toolMessage) return false;
    state.messages.push({ message: toolMessage, turnId, createdAt: now });
    return true;
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

  /** @internal */
  get settings(): { logger: Logger; now: () => Date; defaultMaxSteps: number; modelMaxRetries: number } {
    return { logger: this.options.logger, now: this.now, defaultMaxSteps: this.options.defaultMaxSteps ?? 8, modelMaxRetries: this.options.modelMaxRetries ?? 2 };
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
  firstNewMessage: number;
  release: () => void;
}

/** One running turn: the model passes, the stream, and the final result. */
class TurnExecution {
  private version: number | null;
  private readonly denied: DeniedApproval[] = [];
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
      conversationKey: this.parts.request.conversationKey,
      status,
      text: textOf(messages),
      messages,
      pendingApprovals: pendingApprovals(this.parts.state),
      pendingAsyncTools: [],
      deniedApprovals: this.denied,
      ...(this.failure ? { error: this.failure } : {}),
    };
  }

  /** Answers were recorded but others of the same step are still open. */
  finishAwaitingApproval(): StartedTurn {
    this.parts.release();
    const result = this.result('awaiting_approval');
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        controller.enqueue({ type: 'start' });
        controller.enqueue({ type: 'finish', messageMetadata: { status: result.status, turnId: result.turnId, pendingApprovals: result.pendingApprovals } });
        controller.close();
      },
    });
    return { turnId: this.parts.turnId, stream, result: Promise.resolve(result) };
  }

  run(): StartedTurn {
    let resolveResult!: (result: TurnResult) => void;
    const result = new Promise<TurnResult>((resolve) => {
      resolveResult = resolve;
    });
    const stream = createUIMessageStream({
      execute: async ({ writer }) => {
        let final: TurnResult | undefined;
        try {
          writer.write({ type: 'start' });
          const status = await this.passes((chunk) => writer.write(chunk));
          final = this.result(status);
          writer.write({ type: 'finish', messageMetadata: { status: final.status, turnId: final.turnId, pendingApprovals: final.pendingApprovals } });
        } catch (error) {
          this.parts.runner.settings.logger.error({ event: 'turn', turnId: this.parts.turnId, error: (error as Error).message }, 'turn failed');
          this.failure ??= { kind: 'internal', message: 'The turn failed inside the service; it has been logged.' };
          final = this.result('failed');
          writer.write({ type: 'error', errorText: this.failure.message });
          writer.write({ type: 'finish', messageMetadata: { status: 'failed', turnId: final.turnId } });
        } finally {
          this.parts.release();
          resolveResult(final ?? this.result('failed'));
        }
      },
      onError: (error) => describeModelError(error, this.secrets),
    });
    return { turnId: this.parts.turnId, stream, result };
  }

  /** Model passes until the turn completes, fails, or waits for a person. */
  private async passes(write: (chunk: UIMessageChunk) => void): Promise<TurnStatus> {
    const { request, agent, agentModel, tools, state, turnId } = this.parts;
    const { logger, now, defaultMaxSteps, modelMaxRetries } = this.parts.runner.settings;
    const maxSteps = agent.config.maxSteps ?? defaultMaxSteps;
    for (let pass = 0; pass < maxSteps; pass += 1) {
      let modelError: unknown;
      const stream = streamText({
        model: agentModel.model,
        ...(agent.config.system ? { system: agent.config.system } : {}),
        messages: state.messages.map((stored) => stored.message),
        tools,
        stopWhen: stepCountIs(maxSteps),
        maxRetries: modelMaxRetries,
        ...(agentModel.providerOptions ? { providerOptions: agentModel.providerOptions } : {}),
        onError: ({ error }) => {
          modelError = error;
        },
      });
      for await (const chunk of stream.toUIMessageStream({ sendStart: false, sendFinish: false, sendSources: true, onError: (error) => describeModelError(error, this.secrets) })) {
        write(chunk);
      }
      let responseMessages: ModelMessage[] = [];
      try {
        responseMessages = (await stream.response).messages;
      } catch (error) {
        modelError ??= error;
      }
      const timestamp = now().toISOString();
      for (const message of responseMessages) state.messages.push({ message, turnId, createdAt: timestamp });
      const requested = recordApprovalRequests(state, responseMessages, turnId, timestamp);
      if (modelError !== undefined) {
        this.failure = { kind: 'upstream', message: describeModelError(modelError, this.secrets) };
        logger.warn({ event: 'turn', turnId, agentId: request.agentId, error: this.failure.message }, 'model call failed');
      }
      const denied = this.failure || request.approvalPolicy === 'ask' ? [] : this.denyAll(requested, turnId, timestamp);
      state.updatedAt = timestamp;
      this.version = await this.parts.runner.save(state, this.version);
      if (this.failure) return 'failed';
      for (const approval of denied) {
        write({ type: 'data-approval-denied', data: { toolCallId: approval.toolCallId, toolName: approval.toolName, reason: approval.reason ?? '' } } as UIMessageChunk);
      }
      if (denied.length > 0) continue;
      return requested.length > 0 ? 'awaiting_approval' : 'completed';
    }
    throw new Error(`The turn was stopped after ${maxSteps} model passes.`);
  }

  private denyAll(requested: ApprovalRecord[], turnId: string, timestamp: string): ApprovalRecord[] {
    if (requested.length === 0) return [];
    const reasonFor = this.parts.request.denialReason ?? defaultDenialReason;
    const denied = denyOpenApprovals(this.parts.state, (approval) => reasonFor(approval.toolName), turnId, timestamp);
    for (const approval of denied) this.denied.push({ toolName: approval.toolName, reason: approval.reason ?? '' });
    return denied;
  }
}
