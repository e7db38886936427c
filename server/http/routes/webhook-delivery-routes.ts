import type { FastifyInstance } from 'fastify';
import type { HarnessCore } from '../../core/composition/harness-core.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { errorResponses } from '../openapi/error-responses.js';
import { agentIdParams } from '../schemas.js';

const attemptView = {
  type: 'object',
  required: ['attempt', 'startedAt', 'durationMs'],
  additionalProperties: false,
  properties: {
    attempt: { type: 'integer', minimum: 1 },
    startedAt: { type: 'string' },
    durationMs: { type: 'integer', minimum: 0 },
    statusCode: { type: 'integer', description: 'The receiver’s HTTP status.' },
    error: { type: 'string', description: 'Why there was no answer (connection refused, timeout, refused by the outbound policy).' },
  },
} as const;

const deliveryView = {
  type: 'object',
  required: ['deliveryId', 'agentId', 'eventId', 'eventStatus', 'state', 'attempts', 'createdAt', 'updatedAt'],
  additionalProperties: false,
  properties: {
    deliveryId: { type: 'string', description: 'Also sent as X-Harness-Delivery.' },
    agentId: { type: 'string' },
    eventId: { type: 'string', description: 'The status row announced; also sent as X-Harness-Event.' },
    eventStatus: { type: 'string', enum: ['queued', 'processing', 'awaiting_approval', 'waiting_async_tools', 'completed', 'failed', 'cancelled'] },
    state: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    attempts: { type: 'array', items: attemptView },
    nextAttemptAt: { type: 'string' },
    error: { type: 'string', description: 'Why the delivery ended without (more) attempts.' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
} as const;

const listQuery = {
  type: 'object',
  additionalProperties: false,
  // Query values arrive as strings (no type coercion in this service's validator).
  properties: { limit: { type: 'string', pattern: '^(?:[1-9][0-9]?|1[0-9]{2}|200)$', description: 'How many, 1 to 200 (default 20).' } },
} as const;

/** What the completion webhook delivery route uses of the core. */
export type WebhookDeliveryRouteParts = Pick<HarnessCore, 'accounts' | 'completionWebhooks'>;

/** `GET /agents/{agentId}/webhook-deliveries`: the agent's completion webhook deliveries, newest first. */
export function registerWebhookDeliveryRoutes(app: FastifyInstance, core: WebhookDeliveryRouteParts): void {
  requireAccount(app, core, (scope) => {
    scope.get<{ Params: { agentId: string }; Querystring: { limit?: string } }>(
      '/agents/:agentId/webhook-deliveries',
      {
        schema: {
          summary: "The agent's completion webhook deliveries",
          description: 'Newest first, each with its attempts (status code or error, duration) and its state.',
          tags: ['webhooks'],
          params: agentIdParams,
          querystring: listQuery,
          response: {
            200: { type: 'object', description: 'The deliveries, newest first.', required: ['deliveries'], additionalProperties: false, properties: { deliveries: { type: 'array', items: deliveryView } } },
            ...errorResponses(400, 404),
          },
        },
      },
      async (request) => ({ deliveries: await core.completionWebhooks.list(currentAccount(request).accountId, request.params.agentId, Number(request.query.limit ?? 20)) }),
    );
  });
}
