import type { LanguageModelUsage } from 'ai';
import { describe, expect, it } from 'vitest';
import { addUsage, hasTokens, sumUsage, usageFromModel } from './token-usage.js';

const modelUsage = (fields: Partial<LanguageModelUsage>): LanguageModelUsage => ({
  inputTokens: undefined,
  outputTokens: undefined,
  totalTokens: undefined,
  inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: undefined, cacheWriteTokens: undefined },
  outputTokenDetails: { textTokens: undefined, reasoningTokens: undefined },
  ...fields,
});

describe('usageFromModel', () => {
  it('takes input, output and total, and the cache and reasoning details the provider reported, zeros included', () => {
    expect(usageFromModel(modelUsage({ inputTokens: 10, outputTokens: 4, totalTokens: 14 }))).toEqual({ inputTokens: 10, outputTokens: 4, totalTokens: 14 });
    const detailed = modelUsage({
      inputTokens: 10,
      outputTokens: 4,
      totalTokens: 14,
      inputTokenDetails: { noCacheTokens: 7, cacheReadTokens: 3, cacheWriteTokens: undefined },
      outputTokenDetails: { textTokens: 2, reasoningTokens: 2 },
    });
    expect(usageFromModel(detailed)).toEqual({ inputTokens: 10, outputTokens: 4, totalTokens: 14, cachedInputTokens: 3, reasoningTokens: 2 });
    const zeros = modelUsage({ inputTokens: 1, outputTokens: 1, totalTokens: 2, inputTokenDetails: { noCacheTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } });
    expect(usageFromModel(zeros)).toEqual({ inputTokens: 1, outputTokens: 1, totalTokens: 2, cachedInputTokens: 0, cacheWriteTokens: 0 });
  });

  it('keeps a zero detail only when the provider\'s raw usage has that field: the OpenAI provider fills a missing one with 0', () => {
    const filledIn = { inputTokenDetails: { noCacheTokens: 9, cacheReadTokens: 0, cacheWriteTokens: undefined }, outputTokenDetails: { textTokens: 3, reasoningTokens: 0 } };
    // Chat Completions without details: the SDK says 0, the provider said nothing.
    const silent = modelUsage({ inputTokens: 9, outputTokens: 3, totalTokens: 12, ...filledIn, raw: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 } });
    expect(usageFromModel(silent)).toEqual({ inputTokens: 9, outputTokens: 3, totalTokens: 12 });
    // Responses with its details at zero: reported.
    const reportedZeros = modelUsage({
      inputTokens: 9,
      outputTokens: 3,
      totalTokens: 12,
      ...filledIn,
      raw: { input_tokens: 9, input_tokens_details: { cached_tokens: 0 }, output_tokens: 3, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 12 },
    });
    expect(usageFromModel(reportedZeros)).toEqual({ inputTokens: 9, outputTokens: 3, totalTokens: 12, cachedInputTokens: 0, reasoningTokens: 0 });
    // A number above zero is reported whatever the raw usage looks like.
    const positive = modelUsage({ inputTokens: 9, outputTokens: 3, totalTokens: 12, inputTokenDetails: { noCacheTokens: 5, cacheReadTokens: 4, cacheWriteTokens: undefined }, raw: { prompt_tokens: 9 } });
    expect(usageFromModel(positive)).toEqual({ inputTokens: 9, outputTokens: 3, totalTokens: 12, cachedInputTokens: 4 });
  });

  it('adds up a missing total, and counts nothing for a provider that reports nothing', () => {
    expect(usageFromModel(modelUsage({ inputTokens: 5, outputTokens: 6 }))).toEqual({ inputTokens: 5, outputTokens: 6, totalTokens: 11 });
    expect(usageFromModel(modelUsage({}))).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    expect(usageFromModel(undefined)).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });
});

describe('summing usage', () => {
  it('adds every field, keeping the details only where some call had them (zeros included)', () => {
    const first = { inputTokens: 10, outputTokens: 2, totalTokens: 12, cachedInputTokens: 4 };
    const second = { inputTokens: 20, outputTokens: 3, totalTokens: 23, reasoningTokens: 1 };
    expect(addUsage(first, second)).toEqual({ inputTokens: 30, outputTokens: 5, totalTokens: 35, cachedInputTokens: 4, reasoningTokens: 1 });
    expect(sumUsage([first, second, { inputTokens: 1, outputTokens: 1, totalTokens: 2 }])).toEqual({ inputTokens: 31, outputTokens: 6, totalTokens: 37, cachedInputTokens: 4, reasoningTokens: 1 });
    expect(sumUsage([])).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    expect(hasTokens(sumUsage([]))).toBe(false);
    // A reported zero survives the sum; a detail no call reported stays out.
    expect(addUsage({ inputTokens: 1, outputTokens: 1, totalTokens: 2, cachedInputTokens: 0 }, { inputTokens: 1, outputTokens: 1, totalTokens: 2 })).toEqual({ inputTokens: 2, outputTokens: 2, totalTokens: 4, cachedInputTokens: 0 });
    expect(hasTokens(first)).toBe(true);
  });
});
