import type { TokenUsage } from './token-usage.js';

/** A rough, provider-neutral ratio: English text and JSON average about four characters a token. */
export const charactersPerToken = 4;

/** The tokens `characters` of text or JSON stand for, rounded up. */
export function tokensOf(characters: number): number {
  return characters > 0 ? Math.ceil(characters / charactersPerToken) : 0;
}

/**
 * The usage of a model call that was cut short (cancelled, aborted, timed out or failed
 * mid-stream) and so never got the provider's count, which comes with the stream's last
 * event. The provider still bills it: input from the request's size, output from what it
 * had streamed, every token marked `estimatedTokens`.
 */
export function estimatedCallUsage(sizes: { requestCharacters: number; streamedCharacters: number }): TokenUsage {
  const inputTokens = tokensOf(sizes.requestCharacters);
  const outputTokens = tokensOf(sizes.streamedCharacters);
  const totalTokens = inputTokens + outputTokens;
  return { inputTokens, outputTokens, totalTokens, estimatedTokens: totalTokens };
}
