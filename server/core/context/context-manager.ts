import type { ModelMessage, ToolSet } from 'ai';
import type { AgentConfig } from '../agent-config/agent-config-schema.js';
import type { CompactionMarker, ConversationState, StoredMessage } from '../conversations/conversation.js';
import { createAgentModel, type AgentModel } from '../model/language-model.js';
import { endSpan, failSpan, startSpan } from '../telemetry/spans.js';
import type { TokenUsage } from '../usage/token-usage.js';
import { type ContextStrategy, resolveContextConfig, type ResolvedContextConfig } from './context-config.js';
import { contextView, wholeHistory } from './context-view.js';
import { olderPartEnd, windowStart } from './cut-points.js';
import { modelWindowOf } from './model-windows.js';
import { capToolOutputs, pruneOlderMessages } from './pruning.js';
import { summarize } from './summarizer.js';
import { summaryMessageText } from './summary-prompt.js';
import { estimateMessageTokens, estimateTextTokens, estimateToolTokens, TokenCalibration } from './token-count.js';

/** What the context of one model pass is built from. */
export interface ContextRequest {
  /** The conversation; a summary marker is appended to it when one is written (the caller saves). */
  state: ConversationState;
  config: AgentConfig;
  agentModel: AgentModel;
  /** Everything sent as system text (the agent's `system`, memory notes, a request's instructions). */
  system: string;
  tools: ToolSet | undefined;
  signal: AbortSignal;
  /** `overflow`: the provider refused the last request as too large, compact harder; `manual`: `POST .../compact`. */
  force?: 'overflow' | 'manual';
  turnId: string;
  now: string;
}

/** A compaction or a window cut, as the stream's `data-compaction` part tells it. */
export interface CompactionReport {
  strategy: Exclude<ContextStrategy, 'off'>;
  trigger: CompactionMarker['trigger'];
  tokensBefore: number;
  tokensAfter: number;
  /** Messages folded into the summary (compact) or left out (window). */
  messages: number;
}

/** What a model pass is given. */
export interface PreparedContext {
  messages: ModelMessage[];
  /** The request's input tokens, estimated (calibrated by what the provider reported before). */
  estimatedTokens: number;
  /** The window and what input may take of it. */
  window: { contextWindow: number; inputBudget: number };
  compaction?: CompactionReport;
  /** The summary calls made (each counted in the turn's usage). */
  summaryCalls: TokenUsage[];
  /** The summary marker appended to the conversation, when one was written. */
  marker?: StoredMessage;
}

/** How the service builds each model call's context (docs/context.md). */
export class ContextManager {
  readonly calibration = new TokenCalibration();

  constructor(private readonly options: { maxRetries: number; createSummaryModel?: (config: AgentConfig, modelId: string) => AgentModel } = { maxRetries: 2 }) {}

  /** The window, settings and fixed part (system + tools) of a turn's requests. */
  limits(request: Pick<ContextRequest, 'config' | 'agentModel' | 'system' | 'tools'>) {
    const window = modelWindowOf(request.config.model ?? { provider: request.agentModel.providerName, id: request.agentModel.modelId });
    const settings = resolveContextConfig(request.config.context, window.inputBudget);
    const fixedTokens = estimateTextTokens(request.system) + estimateToolTokens(request.tools) + 8;
    return { window, settings, fixedTokens, modelKey: `${request.agentModel.providerName}:${request.agentModel.modelId}` };
  }

  /** The messages of the next model call: the history, or its summary + what followed, pruned to fit. */
  async prepare(request: ContextRequest): Promise<PreparedContext> {
    const { window, settings, fixedTokens, modelKey } = this.limits(request);
    const measure = (messages: readonly ModelMessage[]) => this.calibration.apply(modelKey, fixedTokens + sum(messages));
    const windowView = { contextWindow: window.contextWindow, inputBudget: window.inputBudget };
    if (settings.strategy === 'off' && request.force === undefined) {
      const messages = wholeHistory(request.state.messages);
      return { messages, estimatedTokens: measure(messages), window: windowView, summaryCalls: [] };
    }
    let built = buildMessages(request.state.messages, settings, window.inputBudget);
    const tokensBefore = measure(built);
    const trigger = Math.floor(settings.triggerRatio * window.inputBudget);
    if (request.force === undefined && tokensBefore <= trigger) return { messages: built, estimatedTokens: tokensBefore, window: windowView, summaryCalls: [] };
    const triggerName: CompactionMarker['trigger'] = request.force ?? 'threshold';
    // After a refusal the estimate was wrong: aim well under the window.
    const target = request.force === 'overflow' ? Math.floor(trigger / 2) : trigger;
    const span = startSpan('harness.context.compaction', () => ({ 'harness.context.strategy': settings.strategy, 'harness.context.trigger': triggerName, 'harness.context.tokens_before': tokensBefore, 'harness.context.window': window.contextWindow }));
    try {
      let summaryCalls: TokenUsage[] = [];
      let marker: StoredMessage | undefined;
      let folded = 0;
      // Compacting on demand writes a summary whatever the strategy: the caller asked for one.
      const strategy: CompactionReport['strategy'] = settings.strategy === 'window' && request.force !== 'manual' ? 'window' : 'compact';
      if (strategy === 'compact') {
        const keepRecent = keepRecentFor(request.force, settings.keepRecentTokens);
        const written = await this.compact(request, settings, keepRecent, window.inputBudget, tokensBefore);
        if (written) {
          marker = written.marker;
          summaryCalls = written.calls;
          folded = written.folded;
          built = buildMessages(request.state.messages, settings, window.inputBudget);
        }
      }
      let dropped = 0;
      if (measure(built) > target) {
        // Still too large (or `window`): the oldest turns are left out of what is sent, the summary kept.
        const [head, rest] = splitSummary(built, request.state.messages);
        const tokens = rest.map(estimateMessageTokens);
        const start = windowStart(rest, tokens, Math.max(0, target - measure(head)));
        dropped = start;
        built = [...head, ...rest.slice(start)];
      }
      const tokensAfter = measure(built);
      const compaction: CompactionReport = { strategy, trigger: triggerName, tokensBefore, tokensAfter, messages: folded + dropped };
      if (marker?.compaction) marker.compaction.tokensAfter = tokensAfter;
      endSpan(span, { 'harness.context.tokens_after': tokensAfter, 'harness.context.messages': compaction.messages, 'harness.context.summary_calls': summaryCalls.length });
      return { messages: built, estimatedTokens: tokensAfter, window: windowView, ...(compaction.messages > 0 || summaryCalls.length > 0 ? { compaction } : {}), summaryCalls, ...(marker ? { marker } : {}) };
    } catch (error) {
      failSpan(span, error);
      throw error;
    }
  }

  /**
   * Folds the older part of the history (all but the recent `keepRecentTokens`, cut where no
   * tool call is split from its result) into a new summary with the previous one, and appends
   * the marker. Nothing when there is no older part.
   */
  private async compact(request: ContextRequest, settings: ResolvedContextConfig, keepRecentTokens: number, inputBudget: number, tokensBefore: number): Promise<{ calls: TokenUsage[]; folded: number; marker: StoredMessage } | undefined> {
    const view = contextView(request.state.messages);
    const end = olderPartEnd(view.messages, view.messages.map(estimateMessageTokens), keepRecentTokens);
    if (end <= 0) return undefined;
    const model = settings.summaryModel ? (this.options.createSummaryModel ?? defaultSummaryModel)(request.config, settings.summaryModel) : request.agentModel;
    const summaryBudget = settings.summaryModel ? modelWindowOf({ ...(request.config.model ?? { provider: model.providerName, id: model.modelId }), id: model.modelId, contextWindow: undefined }).inputBudget : inputBudget;
    const previous = view.summary?.message;
    const { summary, calls } = await summarize({
      model,
      ...(previous ? { previousSummary: summaryTextOf(previous) } : {}),
      messages: view.messages.slice(0, end),
      maxInputTokens: Math.min(summaryBudget, inputBudget),
      maxToolOutputTokens: settings.maxToolOutputTokens,
      maxRetries: this.options.maxRetries,
      signal: request.signal,
    });
    const marker: StoredMessage = {
      message: { role: 'user', content: [{ type: 'text', text: summaryMessageText(summary) }] },
      turnId: request.turnId,
      createdAt: request.now,
      compaction: { summarizedThrough: view.indexes[end]!, trigger: request.force ?? 'threshold', tokensBefore, tokensAfter: tokensBefore },
    };
    request.state.messages.push(marker);
    return { calls, folded: end, marker };
  }

  /**
   * Fits the messages of a call inside a model pass (after tool results came back): the
   * provider's count of the previous call plus an estimate of what was added since; past the
   * input budget the oldest turns are left out of this call. Undefined: send them as they are.
   */
  fitStep(messages: ModelMessage[], known: { sentCount: number; reportedTokens: number }, limits: ReturnType<ContextManager['limits']>): ModelMessage[] | undefined {
    const added = messages.slice(known.sentCount).reduce((total, message) => total + estimateMessageTokens(message), 0);
    const estimate = known.reportedTokens + this.calibration.apply(limits.modelKey, added);
    if (limits.settings.strategy === 'off' || estimate <= limits.window.inputBudget * 0.95) return undefined;
    const capped = capToolOutputs(messages, Math.floor(limits.window.inputBudget / 4));
    const start = windowStart(capped, capped.map(estimateMessageTokens), Math.floor(limits.window.inputBudget * 0.85) - limits.fixedTokens);
    return start > 0 ? capped.slice(start) : capped;
  }
}

/**
 * The recent tokens a compaction keeps verbatim: after a refusal half the usual; on demand
 * none beyond the latest turn (the latest user message and what followed are always kept).
 */
function keepRecentFor(force: ContextRequest['force'], keepRecentTokens: number): number {
  if (force === 'manual') return 0;
  return force === 'overflow' ? Math.floor(keepRecentTokens / 2) : keepRecentTokens;
}

function sum(messages: readonly ModelMessage[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}

function defaultSummaryModel(config: AgentConfig, modelId: string): AgentModel {
  return createAgentModel({ ...config, model: { ...config.model!, id: modelId, fallbacks: undefined } });
}

function summaryTextOf(message: ModelMessage): string {
  const content = message.content;
  const text = typeof content === 'string' ? content : content.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '')).join('');
  return text.slice(text.indexOf('\n') + 1);
}

/** The summary message (when the view starts with one) apart from the rest. */
function splitSummary(built: ModelMessage[], stored: readonly StoredMessage[]): [ModelMessage[], ModelMessage[]] {
  const summary = contextView(stored).summary;
  return summary && built[0] === summary.message ? [built.slice(0, 1), built.slice(1)] : [[], built];
}

/**
 * What is sent of the stored history: the latest summary, then what followed it, the older
 * part pruned (tool outputs over the bound as stubs, reasoning left out) and every tool output
 * over a quarter of the input budget cut.
 */
function buildMessages(stored: readonly StoredMessage[], settings: ResolvedContextConfig, inputBudget: number): ModelMessage[] {
  const view = contextView(stored);
  const recentStart = olderPartEnd(view.messages, view.messages.map(estimateMessageTokens), settings.keepRecentTokens);
  const pruned = capToolOutputs(pruneOlderMessages(view.messages, recentStart, settings.maxToolOutputTokens), Math.floor(inputBudget / 4));
  return view.summary ? [view.summary.message, ...pruned] : pruned;
}
