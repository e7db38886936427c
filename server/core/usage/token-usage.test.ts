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
  it('takes input, output and total, and the cache and reasoning details only when above zero', () => {
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
    expect(usageFromModel(zeros)).toEqual({ inputTokens: 1, outputTokens: 1, totalTokens: 2 });
  });

  it('reads the older flat fields, adds up a missing total, and counts nothing for a provider that reports nothing', () => {
    expect(usageFromModel({ ...modelUsage({ inputTokens: 5, outputTokens: 6 }), cachedInputTokens: 2, reasoningTokens: 1 })).toEqual({
      inputTokens: 5,
      outputTokens: 6,
      totalTokens: 11,
      cachedInputTokens: 2,
      reasoningTokens: 1,
    });
    expect(usageFromModel(modelUsage({}))).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    expect(usageFromModel(undefined)).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });
});

describe('summing usage', () => {
  it('adds every field, keeping the details only where some call had them', () => {
    const first = { inputTokens: 10, outputTokens: 2, totalTokens: 12, cachedInputTokens: 4 };
    const second = { inputTokens: 20, outputTokens: 3, totalTokens: 23, reasoningTokens: 1 };
    expect(addUsage(first, second)).toEqual({ inputTokens: 30, outputTokens: 5, totalTokens: 35, cachedInputTokens: 4, reasoningTokens: 1 });
    expect(sumUsage([first, second, { inputTokens: 1, outputTokens: 1, totalTokens: 2 }])).toEqual({ inputTokens: 31, outputTokens: 6, totalTokens: 37, cachedInputTokens: 4, reasoningTokens: 1 });
    expect(sumUsage([])).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    expect(hasTokens(sumUsage([]))).toBe(false);
    expect(hasTokens(first)).toBe(true);
  });
});
