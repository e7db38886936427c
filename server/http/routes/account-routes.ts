import type { FastifyInstance } from 'fastify';
import type { HarnessCore } from '../../core/harness-core.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { accountView } from '../schemas.js';

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
    },
    async (request, reply) => {
      const created = await core.accounts.create(request.body);
      return reply.status(201).send(created);
    },
  );

  requireAccount(app, core, (scope) => {
    scope.get('/accounts/me', { schema: { response: { 200: accountView } } }, async (request) => core.accounts.get(currentAccount(request).accountId));
  });
}
