import type { LanguageModelUsage } from 'ai';

/**
 * Tokens of one model call, or a sum of calls. `cachedInputTokens` (input tokens read from
 * the provider's cache, part of `inputTokens`) and `reasoningTokens` (part of `outputTokens`)
 * are there when the provider reported them, zeros included: `0` says "no cache hit", absence
 * says "not reported". A sum has a detail when any of its calls had it.
 */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cachedInputTokens?: number;
  /** Input tokens written to the provider's cache (Anthropic, Bedrock), when reported. */
  cacheWriteTokens?: number;
  reasoningTokens?: number;
  /**
   * Which provider (`config.provider` name) and model answered: on each call, and on a sum the
   * last call's (the model that gave the answer).
   */
  provider?: string;
  model?: string;
  /**
   * How many of `totalTokens` the service estimated rather than read from the provider: a
   * model call cut short (cancel, abort, timeout, error) whose usage never arrived. Absent
   * when every token was reported.
   */
  estimatedTokens?: number;
}

export const noUsage: TokenUsage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/** Keys under which providers report cache reads (OpenAI `cached_tokens`, Anthropic `cache_read_input_tokens`, Google `cachedContentTokenCount`...). */
const cachedKeys = /cached|cache_?read/i;
/** Keys under which providers report cache writes (Anthropic `cache_creation_input_tokens`, Bedrock `cacheWriteInputTokens`). */
const cacheWriteKeys = /cache_?(creation|write)/i;
/** Keys under which providers report reasoning (OpenAI `reasoning_tokens`, Google `thoughtsTokenCount`...). */
const reasoningKeys = /reasoning|thoughts/i;

/** True when `raw` (the provider's own usage object) holds a number under a key `pattern` matches, at any depth. */
function rawReports(raw: unknown, pattern: RegExp, depth = 0): boolean {
  if (raw === null || typeof raw !== 'object' || depth > 4) return false;
  return Object.entries(raw as Record<string, unknown>).some(([key, value]) => (typeof value === 'number' && pattern.test(key)) || rawReports(value, pattern, depth + 1));
}

/**
 * A detail as reported, or undefined when the provider did not report it. The AI SDK's
 * providers fill a missing detail with 0 (the OpenAI provider does), so a 0 counts as
 * reported only when the provider's raw usage has that field (or no raw usage is given).
 */
function reportedDetail(value: number | undefined, raw: unknown, pattern: RegExp): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return undefined;
  if (value > 0 || raw === undefined || raw === null) return Math.round(value);
  return rawReports(raw, pattern) ? 0 : undefined;
}

interface Details {
  cached?: number | undefined;
  cacheWrite?: number | undefined;
  reasoning?: number | undefined;
  estimated?: number | undefined;
  provider?: string | undefined;
  model?: string | undefined;
}

function withDetails(base: Pick<TokenUsage, 'inputTokens' | 'outputTokens' | 'totalTokens'>, details: Details): TokenUsage {
  return {
    ...base,
    ...(details.cached !== undefined ? { cachedInputTokens: details.cached } : {}),
    ...(details.cacheWrite !== undefined ? { cacheWriteTokens: details.cacheWrite } : {}),
    ...(details.reasoning !== undefined ? { reasoningTokens: details.reasoning } : {}),
    ...(details.estimated !== undefined ? { estimatedTokens: details.estimated } : {}),
    ...(details.provider !== undefined ? { provider: details.provider } : {}),
    ...(details.model !== undefined ? { model: details.model } : {}),
  };
}

/** The sum of two optional details: undefined only when neither side has it. */
function addDetail(left: number | undefined, right: number | undefined): number | undefined {
  return left === undefined && right === undefined ? undefined : (left ?? 0) + (right ?? 0);
}

/**
 * The AI SDK's usage of one model call in our shape. A provider that reports no total gets
 * input plus output; the cache and reasoning details are read from the usage's
 * `inputTokenDetails.cacheReadTokens` / `.cacheWriteTokens` and `outputTokenDetails.reasoningTokens` (AI SDK 7
 * dropped the older flat `cachedInputTokens` and `reasoningTokens`).
 */
export function usageFromModel(usage: LanguageModelUsage | undefined): TokenUsage {
  if (!usage) return { ...noUsage };
  const inputTokens = count(usage.inputTokens);
  const outputTokens = count(usage.outputTokens);
  const totalTokens = usage.totalTokens === undefined ? inputTokens + outputTokens : count(usage.totalTokens);
  const cached = reportedDetail(usage.inputTokenDetails?.cacheReadTokens, usage.raw, cachedKeys);
  const cacheWrite = reportedDetail(usage.inputTokenDetails?.cacheWriteTokens, usage.raw, cacheWriteKeys);
  const reasoning = reportedDetail(usage.outputTokenDetails?.reasoningTokens, usage.raw, reasoningKeys);
  return withDetails({ inputTokens, outputTokens, totalTokens }, { cached, cacheWrite, reasoning });
}

/** The sum of two usages; its `provider` and `model` are the right side's when it has them. */
export function addUsage(left: TokenUsage, right: TokenUsage): TokenUsage {
  return withDetails(
    {
      inputTokens: left.inputTokens + right.inputTokens,
      outputTokens: left.outputTokens + right.outputTokens,
      totalTokens: left.totalTokens + right.totalTokens,
    },
    {
      cached: addDetail(left.cachedInputTokens, right.cachedInputTokens),
      cacheWrite: addDetail(left.cacheWriteTokens, right.cacheWriteTokens),
      reasoning: addDetail(left.reasoningTokens, right.reasoningTokens),
      estimated: addDetail(left.estimatedTokens, right.estimatedTokens),
      // The later call's model: a sum in call order names the model that answered last.
      provider: right.provider ?? left.provider,
      model: right.model ?? left.model,
    },
  );
}

export function sumUsage(usages: readonly TokenUsage[]): TokenUsage {
  return usages.reduce<TokenUsage>((total, usage) => addUsage(total, usage), { ...noUsage });
}

/** True when the usage counts at least one token. */
export function hasTokens(usage: TokenUsage): boolean {
  return usage.totalTokens > 0 || usage.inputTokens > 0 || usage.outputTokens > 0;
}
