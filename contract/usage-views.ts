import { tokenCounts } from './common-views.js';

/** `GET /accounts/me/usage`: the query and the report. */

const isoDate = { type: 'string', maxLength: 40, description: 'an ISO date, YYYY-MM-DD (UTC day); an ISO date-time counts as its UTC day' } as const;

export const usageQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    from: { ...isoDate, description: 'first day, included (default: 29 days before `to`)' },
    to: { ...isoDate, description: 'last day, included (default: today, UTC)' },
    by: { type: 'string', enum: ['agent', 'model'], description: '`agent` (default): one row per agent and day; `model`: one row per agent, day, provider and model (without `turns`)' },
  },
} as const;

export const usageReportView = {
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
} as const;
