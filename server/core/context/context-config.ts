import { z } from 'zod';

/** What a turn does when its history grows past the trigger. */
export const contextStrategies = ['compact', 'window', 'off'] as const;
export type ContextStrategy = (typeof contextStrategies)[number];

const ratio = z.number({ error: 'must be a number from 0.1 to 0.95' }).min(0.1, 'must be a number from 0.1 to 0.95').max(0.95, 'must be a number from 0.1 to 0.95');
const tokens = z.number({ error: 'must be an integer from 100 to 10000000' }).int('must be an integer from 100 to 10000000').min(100, 'must be an integer from 100 to 10000000').max(10_000_000, 'must be an integer from 100 to 10000000');

/**
 * `config.context`: how a conversation longer than the model's window is sent.
 * `compact` (the default) summarizes the older part once the request passes `triggerRatio` of
 * the window; `window` drops the oldest turns instead; `off` sends the whole history.
 */
export const contextConfigSchema = z.strictObject(
  {
    strategy: z.enum(contextStrategies, { error: `must be one of ${contextStrategies.join(', ')}` }).optional(),
    /** The share of the window past which the history is compacted (default 0.8). */
    triggerRatio: ratio.optional(),
    /** The most recent tokens always sent verbatim (default: a quarter of the window). */
    keepRecentTokens: tokens.optional(),
    /** A model id of the same provider that writes the summaries (default: the agent's model). */
    summaryModel: z.string({ error: 'must be a model id' }).min(1, 'must be a model id').max(200, 'must be at most 200 characters').optional(),
    /** Older tool outputs above this many tokens are sent as a stub (default 2000). */
    maxToolOutputTokens: tokens.optional(),
  },
  { error: 'must be an object {strategy, triggerRatio, keepRecentTokens, summaryModel, maxToolOutputTokens}' },
);

export type ContextConfig = z.infer<typeof contextConfigSchema>;

/** `config.context` with every default filled, for a model whose window is `window` tokens. */
export interface ResolvedContextConfig {
  strategy: ContextStrategy;
  triggerRatio: number;
  keepRecentTokens: number;
  summaryModel?: string;
  maxToolOutputTokens: number;
}

export const defaultTriggerRatio = 0.8;
export const defaultMaxToolOutputTokens = 2_000;

export function resolveContextConfig(config: ContextConfig | undefined, window: number): ResolvedContextConfig {
  const triggerRatio = config?.triggerRatio ?? defaultTriggerRatio;
  // The recent part must leave room for the summary under the trigger: at most half of what the trigger allows.
  const keepRecentTokens = Math.min(config?.keepRecentTokens ?? Math.floor(window / 4), Math.floor((window * triggerRatio) / 2));
  return {
    strategy: config?.strategy ?? 'compact',
    triggerRatio,
    keepRecentTokens,
    ...(config?.summaryModel ? { summaryModel: config.summaryModel } : {}),
    maxToolOutputTokens: config?.maxToolOutputTokens ?? defaultMaxToolOutputTokens,
  };
}
