import type { FastifyInstance } from 'fastify';
import type { HarnessCore } from '../../core/composition/harness-core.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { bearerToken } from '../bearer.js';
import { errorResponses } from '../openapi/error-responses.js';
import { accountView } from '../schemas.js';
import { createdAccountView, signupBody } from '../../../contract/account-views.js';
import { usageRouteSchema } from '../usage-schemas.js';

/** What the account routes use of the core: sign-up, the bearer's account, and its usage. */
export type AccountRouteParts = Pick<HarnessCore, 'accounts' | 'usage'>;

export function registerAccountRoutes(app: FastifyInstance, core: AccountRouteParts): void {
  app.post<{ Body: { username: string; description: string } }>(
    '/accounts',
    {
      schema: {
        summary: 'Create an account',
        description: 'Open to anyone unless sign-up is closed; then only the admin secret as the bearer may create one.',
        tags: ['accounts'],
        security: [{}, { adminBearer: [] }],
        body: signupBody,
        response: { 201: createdAccountView, ...errorResponses(400, 403, 409, 413, 415, 429) },
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
    scope.get(
      '/accounts/me',
      { schema: { summary: 'The account of the bearer', tags: ['accounts'], response: { 200: accountView, ...errorResponses(404) } } },
      async (request) => core.accounts.get(currentAccount(request).accountId),
    );
    scope.get<{ Querystring: { from?: string; to?: string; by?: 'agent' | 'model' } }>('/accounts/me/usage', { schema: usageRouteSchema }, async (request) =>
      core.usage.report(currentAccount(request).accountId, request.query),
    );
  });
}
