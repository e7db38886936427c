import { z } from 'zod';

function numberFrom(minimum: number, maximum: number) {
  const message = `must be a number from ${minimum} to ${maximum}`;
  return z.number({ error: message }).min(minimum, message).max(maximum, message);
}

function integerFrom(minimum: number, maximum: number) {
  const message = `must be an integer from ${minimum} to ${maximum}`;
  return z.number({ error: message }).int(message).min(minimum, message).max(maximum, message);
}

export const reasoningLevelSchema = z.enum(['none', 'low', 'medium', 'high'], { error: 'must be "none", "low", "medium" or "high"' });

/** `providerOptions`: options per provider key (`{anthropic: {...}}`), passed through to the client. */
export const providerOptionsSchema = z.record(z.string(), z.record(z.string(), z.unknown(), { error: 'must be an object of options' }), { error: 'must be an object keyed by provider (e.g. {"anthropic": {...}})' });

/**
 * The settings of one model call, shared by `config.model` and each of its `fallbacks`: the
 * AI SDK's call settings, `reasoning` (mapped to each provider's own option), `providerOptions`
 * (passed through, over ours), the retries and a time limit per call.
 */
export const modelCallSettingsShape = {
  temperature: numberFrom(0, 2).optional(),
  topP: numberFrom(0, 1).optional(),
  topK: integerFrom(1, 1000).optional(),
  maxOutputTokens: integerFrom(1, 1_000_000).optional(),
  stopSequences: z.array(z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(1000, 'must be at most 1000 characters'), { error: 'must be an array of strings' }).max(16, 'must have at most 16 entries').optional(),
  seed: integerFrom(-2_147_483_648, 2_147_483_647).optional(),
  presencePenalty: numberFrom(-2, 2).optional(),
  frequencyPenalty: numberFrom(-2, 2).optional(),
  reasoning: reasoningLevelSchema.optional(),
  providerOptions: providerOptionsSchema.optional(),
  maxRetries: integerFrom(0, 10).optional(),
  timeoutMs: integerFrom(1000, 3_600_000).optional(),
};
