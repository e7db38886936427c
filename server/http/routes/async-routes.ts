import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HarnessCore } from '../../core/composition/harness-core.js';
import { parseChatBody } from '../../core/runs/chat-body.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { accountRateLimit } from '../rate-limit.js';
import { idempotencyKeyHeaders, idempotentRoute } from '../idempotency.js';
import { documentedBody } from '../openapi/documented-body.js';
import { errorResponses } from '../openapi/error-responses.js';
import { agentIdParams, serviceIdParams } from '../schemas.js';
import { asyncSubmittedView, completionAnswerView, documentedChatBody, statusRowView } from '../turn-views.js';
import { completionBody } from '../../../contract/run-control-views.js';

/** The absolute status URL of an event, on the address the client used to reach us. */
export function statusUrl(request: FastifyRequest, eventId: string): string {
  return `${request.protocol}://${request.host}/status/${eventId}`;
}

/** What the async routes use of the core: queued requests, their status rows, and async-tool completions. */
export type AsyncRouteParts = Pick<HarnessCore, 'accounts' | 'rateLimiters' | 'idempotency' | 'turns' | 'usage' | 'asyncRequests' | 'asyncCompletions'>;

/** `POST /agents/{agentId}/async`, `GET /status/{eventId}` and the async-tool completion endpoint. */
export function registerAsyncRoutes(app: FastifyInstance, core: AsyncRouteParts): void {
  requireAccount(app, core, (scope) => {
    scope.post<{ Params: { agentId: string }; Body: unknown }>(
      '/agents/:agentId/async',
      {
        schema: {
          summary: 'Queue a turn',
          description: 'Takes the chat body; the turn runs in the background and its status row tells where it stands.',
          tags: ['async'],
          params: agentIdParams,
          headers: idempotencyKeyHeaders,
          body: { type: 'object' },
          response: { 202: asyncSubmittedView, ...errorResponses(400, 404, 409, 413, 415, 422, 429) },
        },
        ...idempotentRoute(core, 'async', accountRateLimit(core.rateLimiters.turns, 'turns')),
        config: { swaggerTransform: documentedBody({ 'application/json': { schema: documentedChatBody } }) },
      },
      async (request, reply) => {
        const { conversationKey, input, overrides, busy } = parseChatBody(request.body);
        core.turns.checkInput(input);
        // A spent daily budget is answered now (429), not after the request was queued: approval answers run the model too.
        await core.usage.checkBudget(currentAccount(request).accountId, currentAccount(request));
        const { eventId } = await core.asyncRequests.submit({ accountId: currentAccount(request).accountId, agentId: request.params.agentId, conversationKey, input, ...(overrides ? { overrides } : {}), ...(busy ? { busy } : {}) });
        return reply.status(202).send({ eventId, statusUrl: statusUrl(request, eventId) });
      },
    );

    scope.get<{ Params: { eventId: string } }>(
      '/status/:eventId',
      {
        schema: {
          summary: 'Where an event stands',
          description: 'The status row of an `/async` request, a cron run, or a turn that waits for async tools.',
          tags: ['async'],
          params: serviceIdParams('eventId'),
          response: { 200: statusRowView, ...errorResponses(400, 404) },
        },
      },
      async (request) => core.asyncRequests.status(currentAccount(request).accountId, request.params.eventId),
    );

    scope.post<{ Params: { resultId: string }; Body: { status: 'completed'; response: Record<string, unknown> } | { status: 'failed'; error: string } }>(
      '/async-tools/:resultId/complete',
      {
        schema: {
          summary: 'Complete an external async tool call',
          description: 'Settles the call once: a settled call is a 409. The last settled call of a turn starts its continuation.',
          tags: ['async'],
          params: serviceIdParams('resultId'),
          headers: idempotencyKeyHeaders,
          body: completionBody,
          response: { 202: completionAnswerView, ...errorResponses(400, 404, 409, 413, 415, 422, 429) },
        },
        ...idempotentRoute(core, 'async-tool-complete', accountRateLimit(core.rateLimiters.completions, 'completion calls')),
      },
      async (request, reply) => {
        const account = currentAccount(request);
        const outcome = request.body.status === 'completed' ? { status: 'completed' as const, response: request.body.response } : { status: 'failed' as const, error: request.body.error };
        return reply.status(202).send(await core.asyncCompletions.complete(account.accountId, request.params.resultId, outcome));
      },
    );
  });
}
