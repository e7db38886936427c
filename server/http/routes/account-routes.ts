import type { FastifyInstance } from 'fastify';
import type { HarnessCore } from '../../core/harness-core.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { bearerToken } from '../bearer.js';
import { accountView } from '../schemas.js';
import { usageRouteSchema } from '../usage-schemas.js';

export function registerAccountRoutes(app: FastifyInstance, core: HarnessCore): void {
  app.post<{ Body: { username: string; description: string } }>(
    '/accounts',
    {
      schema: {
        body: {
          type: 'object',
          required: ['username', 'description'],
          additionalProperties: false,
          properties: {
            username: { type: 'string', minLength: 1, maxLength: 64 },
            description: { type: 'string', maxLength: 2000 },
          },
        },
        response: { 201: { ...accountView, required: [...accountView.required, 'secret'], properties: { ...accountView.properties, secret: { type: 'string' } } } },
      },
      // Before the body is read: a closed sign-up or a spent budget costs the service nothing.
      onRequest: async (request) => core.accounts.checkSignup({ address: request.ip, bearer: bearerToken(request) }),
    },
    async (request, reply) => {
      const created = await core.accounts.create(request.body);
      return reply.status(201).send(created);
    },
  );

  requireAccount(app, core, (scope) => {
    scope.get('/accounts/me', { schema: { response: { 200: accountView } } }, async (request) => core.accounts.get(currentAccount(request).accountId));
    scope.get<{ Querystring: { from?: string; to?: string } }>('/accounts/me/usage', { schema: usageRouteSchema }, async (request) =>
      core.usage.report(currentAccount(request).accountId, request.query),
    );
  });
}
