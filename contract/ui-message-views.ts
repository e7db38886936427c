import { pendingApprovalView, pendingAsyncToolView, tokenUsageView } from './common-views.js';
import { turnStatus } from './turn-views.js';

/**
 * The stream's own parts: the metadata of its `start` and `finish` chunks and the data parts
 * (`data-<name>`) the turn writes besides the AI SDK's text and tool parts.
 */

/** `data-async-tool-settled`: an async tool call settled, and its result goes back to the model. */
export const asyncToolSettledData = {
  type: 'object',
  required: ['resultId', 'toolName', 'status'],
  properties: {
    resultId: { type: 'string' },
    toolCallId: { type: 'string' },
    toolName: { type: 'string' },
    status: { type: 'string', enum: ['completed', 'failed'] },
    response: { description: "The tool's output, with `completed`." },
    error: { type: 'string', description: 'Why the tool failed, with `failed`.' },
  },
} as const;

/** `data-approval-denied`: a tool that needed an approval this path cannot give did not run. */
export const approvalDeniedData = {
  type: 'object',
  required: ['toolCallId', 'toolName', 'reason'],
  properties: { toolCallId: { type: 'string' }, toolName: { type: 'string' }, reason: { type: 'string' } },
} as const;

/** `data-compaction`: the history was compacted (or its oldest turns left out) before a model call (docs/context.md). */
export const compactionData = {
  type: 'object',
  required: ['strategy', 'trigger', 'tokensBefore', 'tokensAfter', 'messages'],
  properties: {
    strategy: { type: 'string', enum: ['compact', 'window'] },
    trigger: { type: 'string', enum: ['threshold', 'overflow', 'manual'] },
    tokensBefore: { type: 'integer', description: "The request's input tokens before, estimated." },
    tokensAfter: { type: 'integer', description: "The request's input tokens after, estimated." },
    messages: { type: 'integer', description: 'Messages folded into the summary or left out of the request.' },
  },
} as const;

/** `messageMetadata` of the `start` chunk (turn and event) and of the `finish` chunk (how the turn ended). */
export const messageMetadataView = {
  type: 'object',
  properties: {
    turnId: { type: 'string' },
    eventId: { type: 'string', description: '`POST /status/{eventId}/cancel` stops the running turn.' },
    status: turnStatus,
    finishReason: { type: 'string', description: '`budget_exhausted` when the daily token budget stopped the turn.' },
    error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' }, retryAfterSeconds: { type: 'number' } } },
    pendingApprovals: { type: 'array', items: pendingApprovalView },
    pendingAsyncTools: { type: 'array', items: pendingAsyncToolView },
    usage: tokenUsageView,
  },
} as const;
