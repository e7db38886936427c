import type { FastifyInstance } from 'fastify';
import type { HarnessCore } from '../../core/composition/harness-core.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { errorResponses } from '../openapi/error-responses.js';
import { cronJobListView, cronJobView, cronRunListView } from '../../../contract/cron-job-views.js';
import { agentSummaryListView } from '../../../contract/playground-views.js';

interface CronJobParams {
  cronJobId: string;
}

const tags = ['playground'];

const cronJobParams = {
  type: 'object',
  required: ['cronJobId'],
  properties: { cronJobId: { type: 'string', maxLength: 100 } },
} as const;

/** What the playground's reads use of the core: agent names and tool names, and the cron jobs. */
export type PlaygroundApiRouteParts = Pick<HarnessCore, 'accounts' | 'agents' | 'cronJobs'>;

/**
 * The account-service reads the page needs, answered by the agent service from the same core.
 * The page cannot call the account service itself: it is another origin and neither service
 * sends CORS headers (nor should they: a page on any site could then use a stolen secret's
 * session). So the agent service answers these few questions, under `/playground/api`, with
 * the same bearer, and nothing more than the page shows: agent names and tool names (never a
 * config), the cron jobs, their runs, and pause or resume.
 */
export function registerPlaygroundApiRoutes(app: FastifyInstance, core: PlaygroundApiRouteParts): void {
  requireAccount(app, core, (scope) => {
    scope.get(
      '/playground/api/agents',
      {
        schema: {
          summary: "The account's agents, for the playground",
          description: 'Each agent\'s id and tool names; the configs stay on the account service.',
          tags,
          response: { 200: agentSummaryListView },
        },
      },
      async (request) => {
        const agents = await core.agents.list(currentAccount(request).accountId);
        return {
          agents: agents
            .map((agent) => ({ agentId: agent.agentId, tools: Object.keys((agent.config as { tools?: Record<string, unknown> }).tools ?? {}) }))
            .sort((left, right) => left.agentId.localeCompare(right.agentId)),
        };
      },
    );

    scope.get(
      '/playground/api/cron-jobs',
      { schema: { summary: "The account's cron jobs, for the playground", tags, response: { 200: cronJobListView } } },
      async (request) => ({ cronJobs: await core.cronJobs.list(currentAccount(request).accountId) }),
    );

    scope.get<{ Params: CronJobParams }>(
      '/playground/api/cron-jobs/:cronJobId/runs',
      {
        schema: {
          summary: "A cron job's recent runs, for the playground",
          tags,
          params: cronJobParams,
          response: { 200: cronRunListView, ...errorResponses(400, 404) },
        },
      },
      async (request) => ({ runs: await core.cronJobs.runs(currentAccount(request).accountId, request.params.cronJobId) }),
    );

    for (const action of ['pause', 'resume'] as const) {
      scope.post<{ Params: CronJobParams }>(
        `/playground/api/cron-jobs/:cronJobId/${action}`,
        {
          schema: {
            summary: action === 'pause' ? 'Pause a cron job, from the playground' : 'Resume a cron job, from the playground',
            description: 'The same change as `PATCH /accounts/me/cron-jobs/{cronJobId}` with `{"status": "' + (action === 'pause' ? 'paused' : 'active') + '"}` on the account service.',
            tags,
            params: cronJobParams,
            response: { 200: cronJobView, ...errorResponses(400, 404, 409) },
          },
        },
        async (request) => core.cronJobs.update(currentAccount(request).accountId, request.params.cronJobId, { status: action === 'pause' ? 'paused' : 'active' }),
      );
    }
  });
}
