import type { FastifyInstance } from 'fastify';
import type { HarnessCore } from '../core/composition/harness-core.js';
import { type AppOptions, createApp } from './create-app.js';
import { registerAccountRoutes } from './routes/account-routes.js';
import { registerAdminRoutes } from './routes/admin-routes.js';
import { registerAgentConfigRoutes } from './routes/agent-config-routes.js';
import { registerWorkspaceRoutes } from './routes/workspace-routes.js';
import { registerCronJobRoutes } from './routes/cron-job-routes.js';
import { registerNatsCredentialsRoutes, type NatsCredentialsProvider } from './routes/nats-credentials-routes.js';
import { rootView } from './schemas.js';
import { packageVersion as serviceVersion } from '../core/package-version.js';

export interface AccountServiceDependencies extends AppOptions {
  /** The whole core, held here only: each route's signature names the members it uses (its `...RouteParts`). */
  core: HarnessCore;
  /** An account's NATS credentials (`GET /accounts/me/nats`); absent or undefined means NATS is disabled. */
  natsCredentials?: NatsCredentialsProvider;
}

const document = {
  title: 'harness account service',
  description: "Accounts, agents and their configs, workspace files, cron jobs, an account's NATS credentials, and the operator's admin routes.",
};

/** The account-management service ({account_url}): accounts, agent configs, cron jobs, admin. */
export function buildAccountService(dependencies: AccountServiceDependencies): FastifyInstance {
  const { core } = dependencies;
  return createApp(dependencies, document, (app) => {
    app.get('/', { schema: { summary: 'Health and version', tags: ['service'], response: { 200: rootView } } }, async () => ({
      service: 'account',
      status: 'ok',
      version: serviceVersion,
      stage: core.infrastructure.stage,
    }));
    registerAccountRoutes(app, core);
    registerAgentConfigRoutes(app, core);
    registerWorkspaceRoutes(app, core);
    registerCronJobRoutes(app, core);
    registerAdminRoutes(app, core);
    registerNatsCredentialsRoutes(app, core, dependencies.natsCredentials);
  });
}
