import type { FastifyInstance } from 'fastify';
import { isValidConversationKey, pendingApprovals } from '../../core/conversations/conversation.js';
import { NotFoundError, RateLimitedError, TurnFailedError, UpstreamError } from '../../core/errors.js';
import type { HarnessCore } from '../../core/composition/harness-core.js';
import { chunkEventId } from '../../core/turns/chunk-log.js';
import { transports } from '../../core/transports/transports.js';
import { parseChatBody } from '../../core/runs/chat-body.js';
import { wantsEventStream } from '../stream-negotiation.js';
import { runTurnToEnd } from '../../core/runs/run-turn-to-end.js';
import { accountReadingOf, type TurnResult } from '../../core/turns/turn-types.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { accountRateLimit } from '../rate-limit.js';
import { idempotencyKeyHeaders, idempotentStreamedRoute, idempotentStreamStarted } from '../idempotency.js';
import { documentedBody } from '../openapi/documented-body.js';
import { errorResponses } from '../openapi/error-responses.js';
import { agentIdParams } from '../schemas.js';
import { chatAnswerView, conversationView, documentedChatBody } from '../turn-views.js';
import { statusUrl } from './async-routes.js';
import { continuingMessage, peekStream, writeUiMessageSse } from '../ui-message-sse.js';

/** The response header that names the turn's event (also in the stream's `start` and `finish` chunks). */
export const eventIdHeaderName = 'x-harness-event-id';

interface AgentParams {
  agentId: string;
}

/** The JSON answer of a chat turn, for a request that does not accept `text/event-stream`: the turn's end state instead of the stream. */
export function chatAnswer(result: TurnResult) {
  return {
    conversationKey: result.conversationKey,
    status: result.status,
    text: result.text,
    messages: result.messages,
    pendingApprovals: result.pendingApprovals,
    pendingAsyncTools: result.pendingAsyncTools,
    ...(result.usage ? { usage: result.usage } : {}),
    ...(result.output ? { output: result.output.value } : {}),
    ...(result.busy ? { busy: result.busy } : {}),
    // A message handed to another run: the run that answers it.
    ...(result.status === 'collected' || result.status === 'steered' ? { eventId: result.eventId } : {}),
  };
}

function failure(result: TurnResult): Error {
  // A final answer that does not hold the structured output is the model's failure, as a failed call.
  if (result.error?.kind === 'upstream' || result.error?.kind === 'output') return new UpstreamError(result.error.message);
  // The daily token budget stopped the turn between model calls: 429, as a refused turn.
  if (result.error?.kind === 'budget') return new RateLimitedError(result.error.message, result.error.retryAfterSeconds ?? 1);
  return new TurnFailedError(result.error?.message ?? 'The turn failed.');
}

/**
 * The stream is written on the raw socket after `reply.hijack()`, so no serializer touches it;
 * the JSON answer goes through Fastify's serializer for `application/json`.
 */
const chatResponses = {
  description: 'The stream, or the JSON end state of the turn.',
  headers: {
    [eventIdHeaderName]: {
      description: "The turn's event id: `POST /status/{eventId}/cancel` stops the running turn. A streamed turn's `start` chunk carries it too (`messageMetadata.eventId`).",
      type: 'string',
    },
  },
  content: {
    'text/event-stream': {
      schema: {
        type: 'string',
        description:
          'The AI SDK UI message stream protocol: header `x-vercel-ai-ui-message-stream: v1`, per chunk an `id: <event id>` line (what `Last-Event-ID` resumes from) and a `data: <chunk JSON>` line (`text-delta`, `tool-approval-request`, `finish`...), then `data: [DONE]`.',
      },
    },
    'application/json': { schema: chatAnswerView },
  },
} as const;

export interface ChatRouteOptions {
  /** `ENABLE_DIRECT_API`: false removes the chat route (404). */
  enableDirectApi: boolean;
}

/** What the chat routes use of the core: turns, their chunk log (a streamed turn, and an `Idempotency-Key` retry's replay of it), and the stored conversation. */
export type ChatRouteParts = Pick<HarnessCore, 'accounts' | 'rateLimiters' | 'idempotency' | 'chunkLog' | 'runningTurns' | 'resumeAdmission' | 'turns' | 'agents' | 'conversations'>;

/** `POST /agents/{agentId}/chat` (SSE or JSON) and the stored conversation. */
export function registerChatRoutes(app: FastifyInstance, core: ChatRouteParts, options: ChatRouteOptions): void {
  requireAccount(app, core, (scope) => {
    if (options.enableDirectApi) {
      scope.post<{ Params: AgentParams; Body: unknown }>(
        '/agents/:agentId/chat',
        {
          schema: {
            summary: 'Run a turn',
            description:
              'With `Accept: text/event-stream`, or a body in the chat transport form (`{id, messages}`) without `Accept: application/json`, the AI SDK UI message stream (`useChat` and `readUIMessageStream` read it); otherwise the turn\'s end state as JSON. A model that fails before saying anything is a 502 either way.',
            tags: ['chat'],
            params: agentIdParams,
            headers: idempotencyKeyHeaders,
            body: { type: 'object' },
            response: { 200: chatResponses, ...errorResponses(400, 404, 409, 413, 415, 422, 429, 502) },
          },
          ...idempotentStreamedRoute(core, 'chat', accountRateLimit(core.rateLimiters.turns, 'turns')),
          config: { swaggerTransform: documentedBody({ 'application/json': { schema: documentedChatBody } }) },
        },
        async (request, reply) => {
          const account = currentAccount(request);
          const { conversationKey, input, form, continuesMessageId, overrides, busy } = parseChatBody(request.body);
          const wantsStream = wantsEventStream(request.headers.accept, form);
          const transport = wantsStream ? 'sse' : 'json';
          const turn = await core.turns.start({
            accountId: account.accountId,
            agentId: request.params.agentId,
            conversationKey,
            input,
            ...(overrides ? { overrides } : {}),
            ...(busy ? { busy } : {}),
            transport,
            approvalPolicy: transports[transport].approvals.policy,
            accountReadByRequest: accountReadingOf(account),
          });
          // Known before the turn's first byte: the handle a client cancels the running turn by.
          const eventIdHeader = { [eventIdHeaderName]: turn.eventId };
          const peeked = wantsStream ? await peekStream(continuesMessageId ? continuingMessage(turn.stream, continuesMessageId) : turn.stream) : undefined;
          if (!peeked || peeked.failedBeforeOutput) {
            // Nothing is sent yet; a model that failed before saying anything is answered 502.
            peeked?.reader.releaseLock();
            const result = await runTurnToEnd(turn);
            if (result.status === 'failed') throw failure(result);
            const waiting = result.status === 'waiting_async_tools' ? { eventId: result.eventId, statusUrl: statusUrl(request, result.eventId) } : {};
            return reply.status(200).headers(eventIdHeader).send({ ...chatAnswer(result), ...waiting });
          }
          await idempotentStreamStarted(core, request, { agentId: request.params.agentId, conversationKey, turnId: turn.turnId, eventId: turn.eventId });
          reply.hijack();
          // Each chunk is logged as it goes out, under the event id a reconnecting client sends back.
          const address = { accountId: account.accountId, agentId: request.params.agentId, conversationKey, turnId: turn.turnId };
          await writeUiMessageSse(reply.raw, peeked, (chunk) => chunkEventId(turn.turnId, core.chunkLog.append(address, chunk)), eventIdHeader);
        },
      );
    }

    scope.get<{ Params: AgentParams & { conversationKey: string } }>(
      '/agents/:agentId/conversations/:conversationKey',
      {
        schema: {
          summary: 'A stored conversation',
          tags: ['chat'],
          params: { ...agentIdParams, required: ['agentId', 'conversationKey'], properties: { ...agentIdParams.properties, conversationKey: { type: 'string' } } },
          response: { 200: conversationView, ...errorResponses(400, 404) },
        },
      },
      async (request) => {
        const account = currentAccount(request);
        const { agentId, conversationKey } = request.params;
        await core.agents.load(account.accountId, agentId);
        const state = isValidConversationKey(conversationKey) ? await core.conversations.find(account.accountId, agentId, conversationKey) : undefined;
        if (!state) throw new NotFoundError(`No conversation "${conversationKey}" with this agent.`);
        return {
          conversationKey,
          // An assistant message carries the usage of the model call that produced it, and
          // `cancelled: true` when a cancel request cut it short.
          // The last assistant message of a turn with structured output carries its `output`.
          // A summary marker (context compaction) carries `compaction`: the messages before
          // `summarizedThrough` are sent as its summary.
          messages: state.messages.map((stored) =>
            stored.usage || stored.cancelled || 'output' in stored || stored.compaction
              ? { ...stored.message, ...(stored.usage ? { usage: stored.usage } : {}), ...(stored.cancelled ? { cancelled: true } : {}), ...('output' in stored ? { output: stored.output } : {}), ...(stored.compaction ? { compaction: stored.compaction } : {}) }
              : stored.message,
          ),
          pendingApprovals: pendingApprovals(state),
          createdAt: state.createdAt,
          updatedAt: state.updatedAt,
        };
      },
    );
  });
}
