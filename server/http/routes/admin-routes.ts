import type { FastifyInstance } from 'fastify';
import type { HarnessCore } from '../../core/composition/harness-core.js';
import { requireAdmin } from '../authentication.js';
import { errorResponses } from '../openapi/error-responses.js';
import { accountView } from '../schemas.js';

/** What the admin routes use of the core: the accounts (and the admin secret's check). */
export type AdminRouteParts = Pick<HarnessCore, 'accounts'>;

/** Operator routes, behind the stage's admin secret. */
export function registerAdminRoutes(app: FastifyInstance, core: AdminRouteParts): void {
  requireAdmin(app, core, (scope) => {
    scope.get(
      '/admin/accounts',
      {
        schema: {
          summary: 'Every account',
          tags: ['admin'],
          response: { 200: { type: 'object', description: 'Every account, disabled ones included.', required: ['accounts'], properties: { accounts: { type: 'array', items: accountView } } } },
        },
      },
      async () => ({ accounts: await core.accounts.list() }),
    );

    scope.patch<{ Params: { accountId: string }; Body: { disabled?: boolean; tokensPerDay?: number | null } }>(
      '/admin/accounts/:accountId',
      {
        schema: {
          summary: "Disable or enable an account, or set its daily token limit",
          description: "A disabled account's bearer is refused, and its webhooks, cron jobs, async work and continuations do nothing. `tokensPerDay` sets the account's own daily token limit; `null` gives it back the operator's default.",
          tags: ['admin'],
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
          response: { 200: accountView, ...errorResponses(400, 404, 413, 415) },
        },
      },
      async (request) => core.accounts.updateSettings(request.params.accountId, request.body),
    );
  });
}
