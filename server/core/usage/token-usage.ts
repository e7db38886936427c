import type { LanguageModelUsage } from 'ai';

/**
 * Tokens of one model call, or a sum of calls. `cachedInputTokens` (input tokens read from
 * the provider's cache, part of `inputTokens`) and `reasoningTokens` (part of `outputTokens`)
 * are there only when the provider reports a number above zero.
 */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cachedInputTokens?: number;
  reasoningTokens?: number;
}

export const noUsage: TokenUsage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

function withDetails(base: Omit<TokenUsage, 'cachedInputTokens' | 'reasoningTokens'>, cached: number, reasoning: number): TokenUsage {
  return { ...base, ...(cached > 0 ? { cachedInputTokens: cached } : {}), ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}) };
}

/**
 * The AI SDK's usage of one model call in our shape. A provider that reports no total gets
 * input plus output; the cache and reasoning details are read from the AI SDK 6 fields, or
 * from the older flat ones when only those are set.
 */
export function usageFromModel(usage: LanguageModelUsage | undefined): TokenUsage {
  if (!usage) return { ...noUsage };
  const inputTokens = count(usage.inputTokens);
  const outputTokens = count(usage.outputTokens);
  const totalTokens = usage.totalTokens === undefined ? inputTokens + outputTokens : count(usage.totalTokens);
  const cached = count(usage.inputTokenDetails?.cacheReadTokens ?? usage.cachedInputTokens);
  const reasoning = count(usage.outputTokenDetails?.reasoningTokens ?? usage.reasoningTokens);
  return withDetails({ inputTokens, outputTokens, totalTokens }, cached, reasoning);
}

/** The sum of two usages. */
export function addUsage(left: TokenUsage, right: TokenUsage): TokenUsage {
  return withDetails(
    {
      inputTokens: left.inputTokens + right.inputTokens,
      outputTokens: left.outputTokens + right.outputTokens,
      totalTokens: left.totalTokens + right.totalTokens,
    },
    (left.cachedInputTokens ?? 0) + (right.cachedInputTokens ?? 0),
    (left.reasoningTokens ?? 0) + (right.reasoningTokens ?? 0),
  );
}

export function sumUsage(usages: readonly TokenUsage[]): TokenUsage {
  return usages.reduce<TokenUsage>((total, usage) => addUsage(total, usage), { ...noUsage });
}

/** True when the usage counts at least one token. */
export function hasTokens(usage: TokenUsage): boolean {
  return usage.totalTokens > 0 || usage.inputTokens > 0 || usage.outputTokens > 0;
}
