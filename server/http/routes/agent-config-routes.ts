import type { FastifyInstance } from 'fastify';
import type { HarnessCore } from '../../core/composition/harness-core.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { errorResponses } from '../openapi/error-responses.js';
import { agentIdParams, agentView } from '../schemas.js';
import { agentConfigBody as configBody, agentListView } from '../../../contract/account-views.js';

interface AgentParams {
  agentId: string;
}

const tags = ['agents'];

/** What the agent config routes use of the core. */
export type AgentConfigRouteParts = Pick<HarnessCore, 'accounts' | 'agents'>;

/** PUT, PATCH (RFC 7396 merge patch), GET, list and DELETE of an account's agents. */
export function registerAgentConfigRoutes(app: FastifyInstance, core: AgentConfigRouteParts): void {
  requireAccount(app, core, (scope) => {
    scope.get(
      '/accounts/me/agents',
      { schema: { summary: "The account's agents", tags, response: { 200: agentListView } } },
      async (request) => ({ agents: await core.agents.list(currentAccount(request).accountId) }),
    );

    scope.get<{ Params: AgentParams }>(
      '/accounts/me/agents/:agentId',
      { schema: { summary: 'One agent', tags, params: agentIdParams, response: { 200: agentView, ...errorResponses(400, 404) } } },
      async (request) => core.agents.get(currentAccount(request).accountId, request.params.agentId),
    );

    scope.put<{ Params: AgentParams; Body: { config: unknown } }>(
      '/accounts/me/agents/:agentId',
      {
        schema: {
          summary: 'Create or replace an agent',
          tags,
          params: agentIdParams,
          body: configBody,
          response: { 200: { ...agentView, description: 'Replaced.' }, 201: { ...agentView, description: 'Created.' }, ...errorResponses(400, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        const { agent, created } = await core.agents.put(currentAccount(request).accountId, request.params.agentId, request.body.config);
        return reply.status(created ? 201 : 200).send(agent);
      },
    );

    scope.patch<{ Params: AgentParams; Body: { config: unknown } }>(
      '/accounts/me/agents/:agentId',
      {
        schema: {
          summary: "Change an agent's config (JSON merge patch)",
          description: 'RFC 7396: `config` is merged into the stored config; `null` removes a field. Also accepted as `application/merge-patch+json`.',
          tags,
          params: agentIdParams,
          body: configBody,
          response: { 200: agentView, ...errorResponses(400, 404, 409, 413, 415) },
        },
      },
      async (request) => core.agents.patch(currentAccount(request).accountId, request.params.agentId, request.body.config),
    );

    scope.delete<{ Params: AgentParams }>(
      '/accounts/me/agents/:agentId',
      {
        schema: {
          summary: 'Delete an agent',
          tags,
          params: agentIdParams,
          response: { 204: { type: 'null', description: 'Deleted.' }, ...errorResponses(400, 404, 409) },
        },
      },
      async (request, reply) => {
        await core.agents.delete(currentAccount(request).accountId, request.params.agentId);
        return reply.status(204).send();
      },
    );
  });
}
