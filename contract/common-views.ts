/**
 * Response views several routes share. Plain `as const` JSON Schema objects, with no import of
 * Node, Fastify or the core: the server validates and serializes with them (and its OpenAPI
 * document is built from them), and `contract-types.ts` derives the client's TypeScript types
 * from the same objects.
 */

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

export const tokenCounts = {
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
