import type { FastifyInstance } from 'fastify';
import type { HarnessCore } from '../../core/harness-core.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { agentIdParams, agentView } from '../schemas.js';

interface AgentParams {
  agentId: string;
}

const configBody = {
  type: 'object',
  required: ['config'],
  additionalProperties: false,
  properties: { config: { type: 'object' } },
} as const;

/** PUT, PATCH (RFC 7396 merge patch), GET, list and DELETE of an account's agents. */
export function registerAgentConfigRoutes(app: FastifyInstance, core: HarnessCore): void {
  requireAccount(app, core, (scope) => {
    scope.get('/accounts/me/agents', { schema: { response: { 200: { type: 'object', properties: { agents: { type: 'array', items: agentView } } } } } }, async (request) => ({
      agents: await core.agents.list(currentAccount(request).accountId),
    }));

    scope.get<{ Params: AgentParams }>('/accounts/me/agents/:agentId', { schema: { params: agentIdParams, response: { 200: agentView } } }, async (request) =>
      core.agents.get(currentAccount(request).accountId, request.params.agentId),
    );

    scope.put<{ Params: AgentParams; Body: { config: unknown } }>(
      '/accounts/me/agents/:agentId',
      { schema: { params: agentIdParams, body: configBody, response: { 200: agentView, 201: agentView } } },
      async (request, reply) => {
        const { agent, created } = await core.agents.put(currentAccount(request).accountId, request.params.agentId, request.body.config);
        return reply.status(created ? 201 : 200).send(agent);
      },
    );

    scope.patch<{ Params: AgentParams; Body: { config: unknown } }>(
      '/accounts/me/agents/:agentId',
      { schema: { params: agentIdParams, body: configBody, response: { 200: agentView } } },
      async (request) => core.agents.patch(currentAccount(request).accountId, request.params.agentId, request.body.config),
    );

    scope.delete<{ Params: AgentParams }>('/accounts/me/agents/:agentId', { schema: { params: agentIdParams } }, async (request, reply) => {
      await core.agents.delete(currentAccount(request).accountId, request.params.agentId);
      return reply.status(204).send();
    });
  });
}
