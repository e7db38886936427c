/** JSON schemas shared by routes (Fastify validates requests and serializes answers with them). */

export const agentIdParams = {
  type: 'object',
  required: ['agentId'],
  properties: { agentId: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$', description: 'The agent id, chosen by the account.' } },
} as const;

/**
 * An id the service made (`eventId`, `resultId`) named in a path: printable text only. A NUL
 * can never be stored (PostgreSQL text refuses it), so such an id is a client's mistake (400).
 */
export function serviceIdParams<Name extends string>(name: Name) {
  return {
    type: 'object',
    required: [name],
    properties: { [name]: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001f\\u007f]+$' } } as Record<Name, { type: 'string'; minLength: 1; maxLength: 100; pattern: string }>,
  } as const;
}

export const accountView = {
  type: 'object',
  description: 'An account, without its secret.',
  required: ['accountId', 'username', 'description', 'createdAt'],
  properties: {
    accountId: { type: 'string' },
    username: { type: 'string' },
    description: { type: 'string' },
    disabled: { type: 'boolean' },
    tokensPerDay: { type: 'integer', minimum: 0, description: "The account's own daily token limit, when the operator set one." },
    createdAt: { type: 'string', format: 'date-time' },
  },
} as const;

export const agentView = {
  type: 'object',
  description: 'An agent; every API key, token and channel secret in its config is redacted (`{"redacted": true, "last4": "abcd"}`).',
  required: ['agentId', 'config', 'createdAt', 'updatedAt'],
  properties: {
    agentId: { type: 'string' },
    config: { type: 'object', additionalProperties: true },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
} as const;

export const rootView = {
  type: 'object',
  description: 'The service is up.',
  additionalProperties: true,
  properties: {
    service: { type: 'string', enum: ['account', 'agent'] },
    status: { type: 'string', const: 'ok' },
    version: { type: 'string' },
    stage: { type: 'string' },
    nats: { type: 'string', enum: ['connected', 'disconnected', 'disabled'], description: 'The agent service only.' },
  },
} as const;

/** A tool call that waits for the caller's approval. */
export const pendingApprovalView = {
  type: 'object',
  required: ['approvalId', 'toolCallId', 'toolName'],
  properties: {
    approvalId: { type: 'string' },
    toolCallId: { type: 'string' },
    toolName: { type: 'string' },
    input: { description: "The tool call's input, as the model wrote it." },
  },
} as const;

/** An async tool call a turn waits for. */
export const pendingAsyncToolView = {
  type: 'object',
  required: ['resultId', 'toolCallId', 'toolName', 'execution', 'status'],
  properties: {
    resultId: { type: 'string' },
    toolCallId: { type: 'string' },
    toolName: { type: 'string' },
    execution: { type: 'string', enum: ['same-invocation', 'external-dispatch'] },
    status: { type: 'string', enum: ['processing', 'completed', 'failed'] },
  },
} as const;

/** AI SDK model messages (`ModelMessage` of the `ai` package), stored and shown as they are. */
export const modelMessages = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: true,
    properties: { role: { type: 'string', enum: ['system', 'user', 'assistant', 'tool'] } },
    description: 'A model message; in a stored conversation an assistant message also carries `usage`, the token usage of the model call that produced it.',
  },
} as const;
