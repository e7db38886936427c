import type { FastifyInstance } from 'fastify';
import type { HarnessCore } from '../../core/composition/harness-core.js';
import { documentedBody } from '../openapi/documented-body.js';
import { errorResponse, errorResponses } from '../openapi/error-responses.js';

interface WebhookParams {
  accountId: string;
  agentId: string;
  provider: string;
}

const webhookParams = {
  type: 'object',
  required: ['accountId', 'agentId', 'provider'],
  // Only strings here: a malformed id must get the same 404 as an unknown one, never a 400.
  properties: {
    accountId: { type: 'string' },
    agentId: { type: 'string' },
    provider: { type: 'string', description: '`telegram`, `github`, `slack`, `discord`, `pancake` or `zalo`.' },
  },
} as const;

const providerPayload = {
  'application/json': { schema: { type: 'object', additionalProperties: true } },
  'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: true } },
} as const;

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const flat: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}

function flattenQuery(query: unknown): Record<string, string | undefined> {
  const flat: Record<string, string | undefined> = {};
  if (typeof query !== 'object' || query === null) return flat;
  for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
    const first: unknown = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') flat[name] = first;
  }
  return flat;
}

/** What the channel webhook route uses of the core: the channels (no bearer; each provider's own verification). */
export type WebhookRouteParts = Pick<HarnessCore, 'channels'>;

/**
 * `POST /webhooks/{accountId}/{agentId}/{provider}`: no bearer; each provider's own
 * verification instead, which needs the body exactly as sent. The route therefore lives in
 * its own scope whose only content-type parser keeps the raw bytes, whatever the type
 * (Slack sends JSON or form bodies, the others JSON). The core answers; a message is
 * acknowledged at once and processed in the background.
 */
export function registerWebhookRoutes(app: FastifyInstance, core: WebhookRouteParts): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post<{ Params: WebhookParams; Body: Buffer | undefined }>(
      '/webhooks/:accountId/:agentId/:provider',
      {
        schema: {
          summary: "A channel provider's webhook",
          description:
            "No bearer: each provider's own verification (signature, secret token) on the raw body. A message is acknowledged at once and answered in the background.",
          tags: ['webhooks'],
          params: webhookParams,
          response: {
            200: { type: 'object', additionalProperties: true, description: 'What the provider expects (`{"ok": true}`, a Slack challenge, a Discord interaction answer).' },
            ...errorResponses(400, 404, 413, 429),
            401: errorResponse(401, "`unauthorized`: the request failed the provider's verification; nothing ran."),
          },
        },
        config: { swaggerTransform: documentedBody(providerPayload, "The provider's own payload, verified on its raw bytes.") },
      },
      async (request, reply) => {
        const answer = await core.channels.webhooks.receive(request.params, {
          headers: flattenHeaders(request.headers),
          rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
          query: flattenQuery(request.query),
        });
        return reply.status(answer.status).send(answer.body);
      },
    );
  });
}
