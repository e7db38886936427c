import { errorResponses } from './openapi/error-responses.js';

const tokenCounts = {
  inputTokens: { type: 'integer', minimum: 0 },
  outputTokens: { type: 'integer', minimum: 0 },
  totalTokens: { type: 'integer', minimum: 0 },
  cachedInputTokens: { type: 'integer', minimum: 0, description: 'input tokens read from the provider cache (part of inputTokens); present when the provider reported it, 0 included' },
  cacheWriteTokens: { type: 'integer', minimum: 0, description: "input tokens written to the provider's cache (Anthropic, Bedrock); present when the provider reported it, 0 included" },
  reasoningTokens: { type: 'integer', minimum: 0, description: 'reasoning tokens (part of outputTokens); present when the provider reported it, 0 included' },
  estimatedTokens: { type: 'integer', minimum: 0, description: 'tokens (part of totalTokens) estimated by the service for model calls cut short (cancel, abort, timeout, error) before the provider reported usage; absent when all were reported' },
} as const;

/** `{inputTokens, outputTokens, totalTokens}` and the optional details, as turns record them. */
export const tokenUsageView = {
  type: 'object',
  required: ['inputTokens', 'outputTokens', 'totalTokens'],
  properties: {
    ...tokenCounts,
    provider: { type: 'string', description: 'the provider (its config.provider name) that answered; on a sum, the last call\'s' },
    model: { type: 'string', description: 'the model id that answered; on a sum, the last call\'s' },
  },
} as const;

const isoDate = { type: 'string', maxLength: 40, description: 'an ISO date, YYYY-MM-DD (UTC day); an ISO date-time counts as its UTC day' } as const;

/** `GET /accounts/me/usage`: the query, the answer and its errors. */
export const usageRouteSchema = {
  summary: 'Token usage per agent and per day',
  description: "Sums the account's recorded token usage per agent and UTC day, from `from` to `to` (both included).",
  tags: ['accounts'],
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      from: { ...isoDate, description: 'first day, included (default: 29 days before `to`)' },
      to: { ...isoDate, description: 'last day, included (default: today, UTC)' },
      by: { type: 'string', enum: ['agent', 'model'], description: '`agent` (default): one row per agent and day; `model`: one row per agent, day, provider and model (without `turns`)' },
    },
  },
  response: {
    200: {
      type: 'object',
      description: 'One entry per agent and day with usage, oldest first.',
      required: ['from', 'to', 'usage'],
      properties: {
        from: { type: 'string' },
        to: { type: 'string' },
        usage: {
          type: 'array',
          items: {
            type: 'object',
            required: ['agentId', 'day', 'inputTokens', 'outputTokens', 'totalTokens'],
            properties: { agentId: { type: 'string' }, day: { type: 'string' }, provider: { type: 'string' }, model: { type: 'string' }, ...tokenCounts, turns: { type: 'integer', minimum: 0, description: 'turns started (rows by agent only)' } },
          },
        },
      },
    },
    ...errorResponses(400),
  },
} as const;
