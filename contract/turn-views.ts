import { modelMessages, pendingApprovalView, pendingAsyncToolView, tokenUsageView } from './common-views.js';

/**
 * Response schemas of the turn routes. The top-level views stay open (`additionalProperties`):
 * a field the core adds to a turn's answer or a status row reaches the client instead of being
 * dropped by the response serializer.
 */

/** How a turn ended. `collected` and `steered`: the message ran no turn of its own, it was handed to another run (`busy` names it). */
export const turnStatus = { type: 'string', enum: ['completed', 'awaiting_approval', 'waiting_async_tools', 'failed', 'cancelled', 'collected', 'steered'] } as const;

/** The busy modes (`busy` of a chat body, `config.busy` of an agent). */
export const busyModes = ['reject', 'queue', 'collect', 'steer', 'interrupt'] as const;

/** What applied to a message that met a running turn: its mode, and the run it met (or was handed to). */
export const busyAppliedView = {
  type: 'object',
  description: 'The busy mode that applied when the message met a running turn, and the run it met (reject, queue, steer, interrupt) or that answers it (collect).',
  required: ['mode', 'runEventId'],
  properties: { mode: { type: 'string', enum: busyModes }, runEventId: { type: 'string' } },
} as const;

/** The JSON answer of `POST /agents/{agentId}/chat` (a request that does not accept `text/event-stream`). */
export const chatAnswerView = {
  type: 'object',
  description: "The turn's end state.",
  additionalProperties: true,
  required: ['conversationKey', 'status', 'text', 'messages', 'pendingApprovals'],
  properties: {
    conversationKey: { type: 'string' },
    status: turnStatus,
    text: { type: 'string', description: 'The text the model wrote in this turn.' },
    messages: { ...modelMessages, description: "This turn's new messages, its input included." },
    pendingApprovals: { type: 'array', items: pendingApprovalView },
    pendingAsyncTools: { type: 'array', items: pendingAsyncToolView },
    eventId: { type: 'string', description: 'With `waiting_async_tools`: the status row the continuation reports to; with `collected` or `steered`: the run that answers the message.' },
    busy: busyAppliedView,
    output: { description: "A completed turn's structured output (`config.model.output` or the request's `output`), validated against its schema." },
    statusUrl: { type: 'string', format: 'uri' },
  },
} as const;

/** `202` of `POST /agents/{agentId}/async`. */
export const asyncSubmittedView = {
  type: 'object',
  description: 'Queued; poll `statusUrl`.',
  required: ['eventId', 'statusUrl'],
  properties: { eventId: { type: 'string' }, statusUrl: { type: 'string', format: 'uri' } },
} as const;

/** `GET /status/{eventId}`. */
export const statusRowView = {
  type: 'object',
  description: 'The status row.',
  additionalProperties: true,
  required: ['eventId', 'status', 'conversationKey', 'createdAt', 'updatedAt', 'usage', 'usageByCall'],
  properties: {
    eventId: { type: 'string' },
    status: { type: 'string', enum: ['queued', 'processing', 'awaiting_approval', 'waiting_async_tools', 'completed', 'failed', 'cancelled'] },
    conversationKey: { type: 'string' },
    usage: { ...tokenUsageView, description: "The model's token usage of the turn so far, every model call summed." },
    usageByCall: { type: 'array', items: tokenUsageView, description: 'The same model calls each on its own, in the order they were made, continuations included: `usage` is their sum.' },
    result: {
      type: 'object',
      additionalProperties: true,
      required: ['text', 'messages'],
      properties: {
        text: { type: 'string' },
        messages: modelMessages,
        deniedApprovals: {
          type: 'array',
          description: 'Tools that needed an approval this path cannot give, so they did not run.',
          items: { type: 'object', required: ['toolName', 'reason'], properties: { toolName: { type: 'string' }, reason: { type: 'string' } } },
        },
      },
    },
    error: { type: 'string' },
    busy: busyAppliedView,
    output: { description: "A completed turn's structured output (`config.model.output` or the request's `output`), validated against its schema." },
    pendingApprovals: { type: 'array', items: pendingApprovalView },
    pendingAsyncTools: { type: 'array', items: pendingAsyncToolView },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
} as const;

/** `GET /agents/{agentId}/conversations/{conversationKey}`. */
export const conversationView = {
  type: 'object',
  description: 'The stored messages and the approvals still pending.',
  additionalProperties: true,
  required: ['conversationKey', 'messages', 'pendingApprovals', 'createdAt', 'updatedAt'],
  properties: {
    conversationKey: { type: 'string' },
    messages: modelMessages,
    pendingApprovals: { type: 'array', items: pendingApprovalView },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
} as const;

/** `202` of `POST /async-tools/{resultId}/complete`. */
export const completionAnswerView = {
  type: 'object',
  description: 'Settled. `accepted`: this completion claimed the continuation; `waiting_for_async_tools`: other calls of the turn are still processing.',
  required: ['resultId', 'status', 'continuation'],
  properties: {
    resultId: { type: 'string' },
    status: { type: 'string', enum: ['completed', 'failed'] },
    continuation: { type: 'string', enum: ['accepted', 'waiting_for_async_tools'] },
    pendingCount: { type: 'integer', description: 'External calls of the turn still processing, when the continuation waits.' },
  },
} as const;

export const approvalAnswerPart = {
  type: 'object',
  required: ['type', 'approvalId', 'approved'],
  properties: { type: { const: 'tool-approval-response' }, approvalId: { type: 'string' }, approved: { type: 'boolean' }, reason: { type: 'string', maxLength: 2000 } },
} as const;

/** The fields any chat body may carry for its run alone: `model` settings and `instructions` (never stored). */
export const runOverrideProperties = {
  model: {
    type: 'object',
    description: 'Settings over `config.model`\'s for this run only; `provider`, `id` and keys are refused (400 naming the field). `providerOptions` is deep-merged over the config\'s and wins.',
    additionalProperties: false,
    properties: {
      temperature: { type: 'number', minimum: 0, maximum: 2 },
      topP: { type: 'number', minimum: 0, maximum: 1 },
      maxOutputTokens: { type: 'integer', minimum: 1, maximum: 1_000_000 },
      reasoning: { type: 'string', enum: ['none', 'low', 'medium', 'high'] },
      providerOptions: { type: 'object', additionalProperties: { type: 'object' } },
    },
  },
  output: {
    type: 'object',
    description: "A structured output for this run only, over `config.model.output`: the turn ends with a value validated against it (`output` in the answer, on `/status`, one `data-output` part before `finish`).",
    required: ['type'],
    properties: {
      type: { type: 'string', enum: ['object', 'array', 'choice', 'json'] },
      schema: { type: 'object', description: 'JSON Schema of the value (`object`; optional for `json`).' },
      elementSchema: { type: 'object', description: 'JSON Schema of one element (`array`).' },
      options: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 1000, description: 'The choices (`choice`).' },
      name: { type: 'string', maxLength: 200 },
      description: { type: 'string', maxLength: 10_000 },
    },
  },
  instructions: { type: 'string', maxLength: 20_000, description: 'System text after the agent\'s `system`, for this run only (its continuations too); never stored in the conversation.' },
  busy: {
    type: 'string',
    enum: busyModes,
    description: "What to do when the conversation already runs a turn (over the agent's `config.busy`): `reject` (409 `conversation_busy`), `queue`, `collect`, `steer` or `interrupt`.",
  },
} as const;

/**
 * The chat body as the document shows it. The route itself only checks that the body is an
 * object: the core reads it and names the offending field in its 400.
 */
export const documentedChatBody = {
  oneOf: [
    {
      type: 'object',
      title: 'Native',
      required: ['conversationKey', 'message'],
      properties: {
        conversationKey: { type: 'string', minLength: 1, maxLength: 256 },
        ...runOverrideProperties,
        message: {
          description: 'User text, an AI SDK user model message, or a tool message whose content is only `tool-approval-response` parts.',
          oneOf: [
            { type: 'string', minLength: 1 },
            { type: 'object', required: ['role', 'content'], properties: { role: { const: 'user' }, content: {} } },
            { type: 'object', required: ['role', 'content'], properties: { role: { const: 'tool' }, content: { type: 'array', minItems: 1, items: approvalAnswerPart } } },
          ],
        },
      },
    },
    {
      type: 'object',
      title: 'AI SDK chat transport',
      description: 'What `DefaultChatTransport` sends: `id` is the conversation key; the last message is the new input (user text, or the assistant message carrying approval answers).',
      required: ['id', 'messages'],
      properties: { id: { type: 'string', minLength: 1, maxLength: 256 }, messages: { type: 'array', minItems: 1, items: { type: 'object', additionalProperties: true } }, ...runOverrideProperties },
    },
  ],
} as const;
