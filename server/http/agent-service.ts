import type { FastifyInstance } from 'fastify';
import type { HarnessCore } from '../core/harness-core.js';
import { type AppOptions, createApp } from './create-app.js';
import { rootView } from './schemas.js';
import { serviceVersion } from './version.js';

export interface AgentServiceDependencies extends AppOptions {
  core: HarnessCore;
}

/** The agent service ({agent_url}): turns, async API, completions, webhooks. */
export function buildAgentService(dependencies: AgentServiceDependencies): FastifyInstance {
  const app = createApp(dependencies);
  const { core } = dependencies;
  app.get('/', { schema: { response: { 200: rootView } } }, async () => ({ service: 'agent', status: 'ok', version: serviceVersion, stage: core.infrastructure.stage }));
  return app;
}
