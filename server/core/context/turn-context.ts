import type { ModelMessage, ToolSet, UIMessageChunk } from 'ai';
import type { AgentConfig } from '../agent-config/agent-config-schema.js';
import type { ConversationState } from '../conversations/conversation.js';
import type { AgentModel } from '../model/language-model.js';
import type { StepUsage } from '../usage/step-usage.js';
import type { TokenUsage } from '../usage/token-usage.js';
import type { CompactionReport, ContextManager } from './context-manager.js';
import { isContextOverflow } from './overflow-error.js';

/** The `data-compaction` stream part: what a compaction did to the request. */
export function compactionChunk(report: CompactionReport): UIMessageChunk {
  return { type: 'data-compaction', data: report } as UIMessageChunk;
}

/** What a turn's context is built from. */
export interface TurnContextInput {
  state: ConversationState;
  config: AgentConfig;
  agentModel: AgentModel;
  tools: ToolSet;
  /** The system text of every call (the agent's `system`, memory notes, instructions). */
  system: string;
  turnId: string;
  now: () => Date;
}

/**
 * One turn's use of the context manager: the messages of each model pass, the fit of each call
 * inside a pass, the one retry after the provider refused a request as too large.
 */
export class TurnContext {
  private overflowRetried = false;
  private lastEstimate: number | undefined;
  private retryNext = false;

  constructor(
    private readonly manager: ContextManager,
    private readonly input: TurnContextInput,
  ) {}

  /** The messages of the next pass, after a compaction when one is due (its part written, its summary calls returned). */
  async beforePass(signal: AbortSignal, write: (chunk: UIMessageChunk) => void): Promise<{ messages: { message: ModelMessage }[]; summaryCalls: TokenUsage[] }> {
    const force = this.retryNext ? 'overflow' : undefined;
    this.retryNext = false;
    const { state, config, agentModel, tools, system, turnId } = this.input;
    const prepared = await this.manager.prepare({ state, config, agentModel, system, tools, signal, turnId, now: this.input.now().toISOString(), ...(force ? { force } : {}) });
    this.lastEstimate = prepared.estimatedTokens;
    if (prepared.compaction) write(compactionChunk(prepared.compaction));
    return { messages: prepared.messages.map((message) => ({ message })), summaryCalls: prepared.summaryCalls };
  }

  /** What `runModelPass` is given to fit each call and to hold back a refusal the turn retries. */
  passOptions() {
    const limits = this.manager.limits(this.input);
    return {
      fitStep: (messages: ModelMessage[], previous: { sentCount: number; reportedTokens: number } | undefined) =>
        this.manager.fitStep(messages, previous ?? { sentCount: 0, reportedTokens: limits.fixedTokens }, limits),
      holdsError: (error: unknown) => !this.overflowRetried && limits.settings.strategy !== 'off' && isContextOverflow(error),
    };
  }

  /** Calibrates the estimate with the provider's count of the pass's first call. */
  afterPass(steps: readonly StepUsage[]): void {
    const reported = steps[0]?.usage.inputTokens;
    if (reported && this.lastEstimate) this.manager.calibration.record(this.manager.limits(this.input).modelKey, this.lastEstimate, reported);
  }

  /** True once for a refusal as too large: the next pass compacts harder and calls again. */
  retryAfterOverflow(error: unknown): boolean {
    // `off` is the behaviour before context management: the refusal fails the turn.
    if (this.overflowRetried || !isContextOverflow(error) || this.manager.limits(this.input).settings.strategy === 'off') return false;
    this.overflowRetried = true;
    this.retryNext = true;
    return true;
  }

  /** The failure after the retry: names the window and the request's size. */
  overflowMessage(error: unknown): string | undefined {
    if (!isContextOverflow(error)) return undefined;
    const { window } = this.manager.limits(this.input);
    const after = this.overflowRetried ? ' even after compaction' : '';
    return `The conversation does not fit the model's context window${after}: the request was about ${this.lastEstimate ?? 0} input tokens, the window is ${window.contextWindow} tokens (${window.inputBudget} for input). Set config.model.contextWindow to the model's real window, use config.context.strategy "compact" or "window", or start a new conversation.`;
  }
}
