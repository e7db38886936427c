/**
 * The service's limits. Every one is configurable through the environment, and
 * tests and benchmarks set the ones they need explicitly. Defaults are generous for one
 * person's or one team's agents on one machine.
 */
export interface ServiceLimits {
  /** Chat and `/async` requests per account per minute (agent service). */
  turnRequestsPerMinute: number;
  /** Completion-endpoint calls per account per minute: a budget of its own. */
  completionRequestsPerMinute: number;
  /** Webhook deliveries per agent per minute: a budget of its own. */
  webhookRequestsPerMinute: number;
  /** Direct (SSE/JSON/NATS) turns running at once per account. */
  maxConcurrentTurnsPerAccount: number;
  /** Characters in one user message. */
  maxMessageCharacters: number;
  /**
   * Messages stored in one conversation; past it a new conversation key is needed. 20,000 by
   * default: with context management a turn sends a bounded part, and what the history still
   * costs a turn stays flat to 20,000 messages (docs/context.md, the measured load cost).
   */
  maxConversationMessages: number;
  /** Bytes of one tool output (as JSON) handed to the model. */
  maxToolOutputBytes: number;
  /**
   * Tokens one account may use per UTC day before new turns are refused (429); undefined, the
   * default, sets no limit. An account's own limit (set by the operator) replaces it.
   */
  tokensPerDay?: number;
}

export const defaultServiceLimits: ServiceLimits = {
  turnRequestsPerMinute: 600,
  completionRequestsPerMinute: 6000,
  webhookRequestsPerMinute: 600,
  maxConcurrentTurnsPerAccount: 16,
  maxMessageCharacters: 100_000,
  maxConversationMessages: 20_000,
  maxToolOutputBytes: 256 * 1024,
};

const variables: Record<keyof ServiceLimits, string> = {
  turnRequestsPerMinute: 'HARNESS_LIMIT_TURNS_PER_MINUTE',
  completionRequestsPerMinute: 'HARNESS_LIMIT_COMPLETIONS_PER_MINUTE',
  webhookRequestsPerMinute: 'HARNESS_LIMIT_WEBHOOKS_PER_MINUTE',
  maxConcurrentTurnsPerAccount: 'HARNESS_LIMIT_CONCURRENT_TURNS',
  maxMessageCharacters: 'HARNESS_LIMIT_MESSAGE_CHARACTERS',
  maxConversationMessages: 'HARNESS_LIMIT_CONVERSATION_MESSAGES',
  maxToolOutputBytes: 'HARNESS_LIMIT_TOOL_OUTPUT_BYTES',
  tokensPerDay: 'HARNESS_LIMIT_TOKENS_PER_DAY',
};

/** The limits from `HARNESS_LIMIT_*` variables over the defaults; a bad value is a start error. */
export function limitsFromEnvironment(environment: NodeJS.ProcessEnv = process.env, base: ServiceLimits = defaultServiceLimits): ServiceLimits {
  const limits = { ...base };
  for (const [name, variable] of Object.entries(variables) as [keyof ServiceLimits, string][]) {
    const value = environment[variable];
    if (value === undefined || value === '') continue;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${variable} must be a positive integer (got ${JSON.stringify(value)}).`);
    limits[name] = parsed;
  }
  return limits;
}
