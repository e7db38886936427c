import type { FastifyInstance } from 'fastify';
import type { HarnessCore } from '../core/harness-core.js';
import { type AppOptions, createApp } from './create-app.js';
import { registerAccountRoutes } from './routes/account-routes.js';
import { registerAdminRoutes } from './routes/admin-routes.js';
import { registerAgentConfigRoutes } from './routes/agent-config-routes.js';
import { rootView } from './schemas.js';
import { serviceVersion } from './version.js';

export interface AccountServiceDependencies extends AppOptions {
  core: HarnessCore;
}

/** The account-management service ({account_url}): accounts, agent configs, cron jobs, admin. */
export function buildAccountService(dependencies: AccountServiceDependencies): FastifyInstance {
  const app = createApp(dependencies);
  const { core } = dependencies;
  app.get('/', { schema: { response: { 200: rootView } } }, async () => ({ service: 'account', status: 'ok', version: serviceVersion, stage: core.infrastructure.stage }));
  registerAccountRoutes(app, core);
  registerAgentConfigRoutes(app, core);
  registerAdminRoutes(app, core);
  return app;
}
