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
