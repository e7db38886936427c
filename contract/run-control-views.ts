/** Cancelling a run, and completing an external async tool call. */

export const cancelAnswerView = {
  type: 'object',
  description:
    'Cancelled. A running turn stops (its model call, tools and async waits) and ends with a `finish` whose status is `cancelled`; a run that waited for approvals or async tools is closed; a queued request never starts. The status row says `cancelled`.',
  required: ['cancelled', 'conversationKey', 'state', 'closedApprovals', 'closedAsyncTools'],
  properties: {
    cancelled: { const: true },
    conversationKey: { type: 'string' },
    eventId: { type: 'string', description: 'The status row of the run.' },
    turnId: { type: 'string', description: 'The running turn asked to stop (with `state: running`).' },
    state: { type: 'string', enum: ['running', 'waiting', 'queued'], description: 'What was cancelled: a running turn, a run waiting for approvals or async tools, or a queued request.' },
    closedApprovals: { type: 'array', items: { type: 'string' }, description: 'Approvals closed as denied; answering them is a 409.' },
    closedAsyncTools: { type: 'array', items: { type: 'string' }, description: 'Async tool calls closed as failed; completing them is a 409.' },
  },
} as const;

/** The body of `POST /async-tools/{resultId}/complete`. */
export const completionBody = {
  type: 'object',
  required: ['status'],
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: ['completed', 'failed'] },
    response: { type: 'object', description: "The tool's output, with `completed`." },
    error: { type: 'string', minLength: 1, maxLength: 10_000, description: 'Why the tool failed, with `failed`.' },
  },
  oneOf: [
    { properties: { status: { const: 'completed' } }, required: ['response'], not: { required: ['error'] } },
    { properties: { status: { const: 'failed' } }, required: ['error'], not: { required: ['response'] } },
  ],
} as const;

/** `200` of `POST /agents/{agentId}/conversations/{conversationKey}/compact`. */
export const compactionAnswerView = {
  type: 'object',
  description:
    'The conversation compacted on demand: everything before its latest turn is summarized by the model and the summary stored as a marker (`compaction.trigger: "manual"`); later turns send the summary and what followed. `compacted: false` when nothing was older than the latest turn.',
  required: ['conversationKey', 'compacted', 'tokensBefore', 'tokensAfter', 'messages'],
  properties: {
    conversationKey: { type: 'string' },
    compacted: { type: 'boolean' },
    tokensBefore: { type: 'integer', description: "The next model call's input tokens (system prompt and history, tools not counted), estimated, before." },
    tokensAfter: { type: 'integer', description: 'The same, after.' },
    messages: { type: 'integer', description: 'Messages folded into the summary.' },
    marker: {
      type: 'object',
      additionalProperties: true,
      description: 'The summary marker as `GET .../conversations/{conversationKey}` shows it: a user message whose text is the summary, with its `compaction`.',
      required: ['role', 'content', 'compaction'],
      properties: {
        role: { const: 'user' },
        content: {},
        compaction: {
          type: 'object',
          required: ['summarizedThrough', 'trigger', 'tokensBefore', 'tokensAfter'],
          properties: {
            summarizedThrough: { type: 'integer', description: 'The stored messages before this index are covered by the summary.' },
            trigger: { type: 'string', enum: ['threshold', 'overflow', 'manual'] },
            tokensBefore: { type: 'integer' },
            tokensAfter: { type: 'integer' },
          },
        },
      },
    },
  },
} as const;
