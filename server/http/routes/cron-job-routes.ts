import type { FastifyInstance } from 'fastify';
import type { CronJobInput, CronJobPatch } from '../../core/cron-jobs/index.js';
import type { HarnessCore } from '../../core/composition/harness-core.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { errorResponses } from '../openapi/error-responses.js';
import { cronJobCreateBody, cronJobListView, cronJobPatchBody, cronJobView, cronRunListView, cronRunView } from '../../../contract/cron-job-views.js';
import { idempotencyKeyHeaders, idempotentRoute } from '../idempotency.js';

interface CronJobParams {
  cronJobId: string;
}

// The views and bodies are the API contract's; re-exported for the routes that import them here.
export { cronJobView, cronRunView };

const cronJobParams = {
  type: 'object',
  required: ['cronJobId'],
  properties: { cronJobId: { type: 'string', maxLength: 100 } },
} as const;

const tags = ['cron-jobs'];

/** What the cron job routes use of the core (creation honours `Idempotency-Key`). */
export type CronJobRouteParts = Pick<HarnessCore, 'accounts' | 'cronJobs' | 'idempotency'>;

/** An account's cron jobs and their runs, under `/accounts/me/cron-jobs`. */
export function registerCronJobRoutes(app: FastifyInstance, core: CronJobRouteParts): void {
  requireAccount(app, core, (scope) => {
    scope.post<{ Body: CronJobInput }>(
      '/accounts/me/cron-jobs',
      {
        schema: {
          summary: 'Create a cron job',
          description: 'A bad expression or zone is a 400 saying what is wrong.',
          tags,
          headers: idempotencyKeyHeaders,
          body: cronJobCreateBody,
          response: { 201: cronJobView, ...errorResponses(400, 404, 409, 413, 415, 422) },
        },
        ...idempotentRoute(core, 'cron-job-create'),
      },
      async (request, reply) => {
        const job = await core.cronJobs.create(currentAccount(request).accountId, request.body);
        return reply.status(201).send(job);
      },
    );

    scope.get(
      '/accounts/me/cron-jobs',
      { schema: { summary: "The account's cron jobs", tags, response: { 200: cronJobListView } } },
      async (request) => ({ cronJobs: await core.cronJobs.list(currentAccount(request).accountId) }),
    );

    scope.get<{ Params: CronJobParams }>(
      '/accounts/me/cron-jobs/:cronJobId',
      { schema: { summary: 'One cron job', tags, params: cronJobParams, response: { 200: cronJobView, ...errorResponses(400, 404) } } },
      async (request) => core.cronJobs.get(currentAccount(request).accountId, request.params.cronJobId),
    );

    scope.patch<{ Params: CronJobParams; Body: CronJobPatch }>(
      '/accounts/me/cron-jobs/:cronJobId',
      {
        schema: {
          summary: 'Change, pause or resume a cron job',
          tags,
          params: cronJobParams,
          body: cronJobPatchBody,
          response: { 200: cronJobView, ...errorResponses(400, 404, 409, 413, 415) },
        },
      },
      async (request) => core.cronJobs.update(currentAccount(request).accountId, request.params.cronJobId, request.body),
    );

    scope.delete<{ Params: CronJobParams }>(
      '/accounts/me/cron-jobs/:cronJobId',
      { schema: { summary: 'Delete a cron job', tags, params: cronJobParams, response: { 204: { type: 'null', description: 'Deleted.' }, ...errorResponses(400, 404) } } },
      async (request, reply) => {
        await core.cronJobs.delete(currentAccount(request).accountId, request.params.cronJobId);
        return reply.status(204).send();
      },
    );

    scope.get<{ Params: CronJobParams }>(
      '/accounts/me/cron-jobs/:cronJobId/runs',
      {
        schema: {
          summary: "A cron job's recent runs",
          tags,
          params: cronJobParams,
          response: { 200: cronRunListView, ...errorResponses(400, 404) },
        },
      },
      async (request) => ({ runs: await core.cronJobs.runs(currentAccount(request).accountId, request.params.cronJobId) }),
    );
  });
}
