import type { FastifyInstance } from 'fastify';
import type { HarnessCore } from '../../core/harness-core.js';
import { requireAdmin } from '../authentication.js';
import { accountView } from '../schemas.js';

/** Operator routes, behind the stage's admin secret. */
export function registerAdminRoutes(app: FastifyInstance, core: HarnessCore): void {
  requireAdmin(app, core, (scope) => {
    scope.get('/admin/accounts', { schema: { response: { 200: { type: 'object', properties: { accounts: { type: 'array', items: accountView } } } } } }, async () => ({
      accounts: await core.accounts.list(),
    }));

    scope.patch<{ Params: { accountId: string }; Body: { disabled?: boolean; tokensPerDay?: number | null } }>(
      '/admin/accounts/:accountId',
      {
        schema: {
          params: { type: 'object', required: ['accountId'], properties: { accountId: { type: 'string', pattern: '^acc_[a-z0-9]{20}$' } } },
          body: {
            type: 'object',
            minProperties: 1,
            additionalProperties: false,
            properties: {
              disabled: { type: 'boolean' },
              // The account's own daily token limit; null gives it back the operator's default.
              tokensPerDay: { type: ['integer', 'null'], minimum: 0 },
            },
          },
          response: { 200: accountView },
        },
      },
      async (request) => core.accounts.updateSettings(request.params.accountId, request.body),
    );
  });
}
