import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AccountRecord } from '../core/accounts/account.js';
import { UnauthorizedError } from '../core/errors.js';
import type { HarnessCore } from '../core/composition/harness-core.js';
import { bearerToken } from './bearer.js';
import { documentBearer } from './openapi/route-defaults.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The account whose secret authorized this request (routes behind `requireAccount`). */
    account: AccountRecord | null;
  }
}

/** The authenticated account; only call in routes registered behind `requireAccount`. */
export function currentAccount(request: FastifyRequest): AccountRecord {
  if (!request.account) throw new UnauthorizedError();
  return request.account;
}

/** What the bearer checks use of the core: every route behind them has it among its parts. */
export type AuthenticationParts = Pick<HarnessCore, 'accounts'>;

/** Routes registered inside `register` need `Authorization: Bearer <ACCOUNT_SECRET>`, checked before the body is read. */
export function requireAccount(app: FastifyInstance, core: AuthenticationParts, register: (scope: FastifyInstance) => void): void {
  if (!app.hasRequestDecorator('account')) app.decorateRequest('account', null);
  void app.register(async (scope) => {
    scope.addHook('onRequest', async (request) => {
      request.account = await core.accounts.authenticate(bearerToken(request));
    });
    documentBearer(scope, 'bearer');
    register(scope);
  });
}

/** Routes registered inside `register` need the admin secret. */
export function requireAdmin(app: FastifyInstance, core: AuthenticationParts, register: (scope: FastifyInstance) => void): void {
  void app.register(async (scope) => {
    scope.addHook('onRequest', async (request) => {
      if (!core.accounts.isAdminSecret(bearerToken(request))) throw new UnauthorizedError('This route needs the admin secret as the bearer.');
    });
    documentBearer(scope, 'adminBearer');
    register(scope);
  });
}
