/** JSON schemas shared by routes (Fastify validates with Ajv, before handlers run). */

export const agentIdParams = {
  type: 'object',
  required: ['agentId'],
  properties: { agentId: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' } },
} as const;

export const errorResponse = {
  type: 'object',
  properties: { error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } } },
} as const;

export const accountView = {
  type: 'object',
  required: ['accountId', 'username', 'description', 'createdAt'],
  properties: {
    accountId: { type: 'string' },
    username: { type: 'string' },
    description: { type: 'string' },
    disabled: { type: 'boolean' },
    tokensPerDay: { type: 'integer', minimum: 0 },
    createdAt: { type: 'string' },
  },
} as const;

export const agentView = {
  type: 'object',
  required: ['agentId', 'config', 'createdAt', 'updatedAt'],
  properties: {
    agentId: { type: 'string' },
    config: { type: 'object', additionalProperties: true },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
} as const;

export const rootView = {
  type: 'object',
  additionalProperties: true,
  properties: { service: { type: 'string' }, status: { type: 'string' }, version: { type: 'string' } },
} as const;
