import type { FastifyInstance } from 'fastify';
import type { HarnessCore } from '../core/composition/harness-core.js';
import { type AppOptions, createApp } from './create-app.js';
import { registerAsyncRoutes } from './routes/async-routes.js';
import { registerCancelRoutes } from './routes/cancel-routes.js';
import { registerChatRoutes } from './routes/chat-routes.js';
import { registerCompactionRoutes } from './routes/compaction-routes.js';
import { registerStreamRoutes } from './routes/stream-routes.js';
import { registerMcpRoutes } from './routes/mcp-routes.js';
import { registerMcpServerToolsRoutes } from './routes/mcp-server-tools-routes.js';
import { registerWebhookDeliveryRoutes } from './routes/webhook-delivery-routes.js';
import { registerWebhookRoutes } from './routes/webhook-routes.js';
import { registerPlaygroundRoutes } from './playground/playground-routes.js';
import { playgroundEnabled } from './playground/playground-setting.js';
import { rootView } from './schemas.js';
import { packageVersion as serviceVersion } from '../core/package-version.js';

export interface AgentServiceDependencies extends AppOptions {
  /** The whole core, held here only: each route's signature names the members it uses (its `...RouteParts`). */
  core: HarnessCore;
  /** `ENABLE_DIRECT_API` (default true): false removes `POST /agents/{agentId}/chat`. */
  enableDirectApi?: boolean;
  /** The NATS side's state for `GET /`; absent means NATS is disabled. */
  natsState?: () => 'connected' | 'disconnected' | 'disabled';
  /** Serve the web playground at `/playground`; absent means `HARNESS_PLAYGROUND` (on by default for the `local` stage). */
  playground?: boolean;
}

const document = {
  title: 'harness agent service',
  description: 'Turns (SSE or JSON), async requests and their status rows, async-tool completions, stored conversations, and channel webhooks.',
};

/** The agent service ({agent_url}): turns, async API, completions, webhooks. */
export function buildAgentService(dependencies: AgentServiceDependencies): FastifyInstance {
  const { core } = dependencies;
  return createApp(dependencies, document, (app) => {
    app.get('/', { schema: { summary: 'Health, version and NATS state', tags: ['service'], response: { 200: rootView } } }, async () => ({
      service: 'agent',
      status: 'ok',
      version: serviceVersion,
      stage: core.infrastructure.stage,
      nats: dependencies.natsState?.() ?? 'disabled',
    }));
    registerChatRoutes(app, core, { enableDirectApi: dependencies.enableDirectApi ?? true });
    registerStreamRoutes(app, core);
    registerAsyncRoutes(app, core);
    registerCancelRoutes(app, core);
    registerCompactionRoutes(app, core);
    registerWebhookRoutes(app, core);
    registerWebhookDeliveryRoutes(app, core);
    registerPlaygroundRoutes(app, core, { enabled: dependencies.playground ?? playgroundEnabled(core.infrastructure.stage) });
    registerMcpRoutes(app, core);
    registerMcpServerToolsRoutes(app, core);
  });
}
