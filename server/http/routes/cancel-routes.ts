import type { FastifyInstance } from 'fastify';
import type { HarnessCore } from '../../core/composition/harness-core.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { errorResponses } from '../openapi/error-responses.js';
import { agentIdParams, serviceIdParams } from '../schemas.js';
import { cancelAnswerView } from '../../../contract/run-control-views.js';

const conversationParams = {
  ...agentIdParams,
  required: ['agentId', 'conversationKey'],
  properties: { ...agentIdParams.properties, conversationKey: { type: 'string', minLength: 1, maxLength: 256 } },
} as const;

/** What the cancel routes use of the core. */
export type CancelRouteParts = Pick<HarnessCore, 'accounts' | 'cancellation'>;

/** `POST /agents/{agentId}/conversations/{conversationKey}/cancel` and `POST /status/{eventId}/cancel`. */
export function registerCancelRoutes(app: FastifyInstance, core: CancelRouteParts): void {
  requireAccount(app, core, (scope) => {
    scope.post<{ Params: { agentId: string; conversationKey: string } }>(
      '/agents/:agentId/conversations/:conversationKey/cancel',
      {
        schema: {
          summary: "Cancel a conversation's run",
          description: 'Stops the turn running on the conversation, on whichever replica runs it, or closes the approvals and async tool calls it waits for. 409 when nothing runs.',
          tags: ['chat'],
          params: conversationParams,
          response: { 202: cancelAnswerView, ...errorResponses(400, 404, 409) },
        },
      },
      async (request, reply) => {
        const { agentId, conversationKey } = request.params;
        return reply.status(202).send(await core.cancellation.cancelConversation(currentAccount(request).accountId, agentId, conversationKey));
      },
    );

    scope.post<{ Params: { eventId: string } }>(
      '/status/:eventId/cancel',
      {
        schema: {
          summary: 'Cancel a run by its event',
          description: 'Stops the turn of an event (an `/async` request, a cron run, a chat turn), on whichever replica runs it; closes a run that waits; a queued request never starts. 409 when nothing runs.',
          tags: ['async'],
          params: serviceIdParams('eventId'),
          response: { 202: cancelAnswerView, ...errorResponses(400, 404, 409) },
        },
      },
      async (request, reply) => reply.status(202).send(await core.cancellation.cancelEvent(currentAccount(request).accountId, request.params.eventId)),
    );
  });
}
