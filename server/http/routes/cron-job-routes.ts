import type { FastifyInstance } from 'fastify';
import type { CronJobInput, CronJobPatch } from '../../core/cron-jobs/index.js';
import type { HarnessCore } from '../../core/harness-core.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { errorResponses } from '../openapi/error-responses.js';
import { idempotencyKeyHeaders, idempotentRoute } from '../idempotency.js';

interface CronJobParams {
  cronJobId: string;
}

const nullableString = { type: ['string', 'null'] } as const;

export const cronJobView = {
  type: 'object',
  description: 'A cron job.',
  required: ['cronJobId', 'name', 'agentId', 'conversationKey', 'prompt', 'scheduleExpression', 'timezone', 'status', 'nextRunAt', 'lastRunAt', 'lastRunStatus', 'createdAt', 'updatedAt'],
  properties: {
    cronJobId: { type: 'string' },
    name: { type: 'string' },
    agentId: { type: 'string' },
    conversationKey: { type: 'string' },
    prompt: { type: 'string' },
    scheduleExpression: { type: 'string', description: 'EventBridge Scheduler syntax: `cron(...)`, `rate(...)` or `at(...)`.' },
    timezone: { type: 'string', description: 'An IANA zone.' },
    status: { type: 'string', enum: ['active', 'paused', 'completed'] },
    nextRunAt: { ...nullableString, description: 'The slot the scheduler fires next; null when paused, completed or nothing is left.' },
    lastRunAt: nullableString,
    lastRunStatus: { type: ['string', 'null'], enum: ['running', 'completed', 'failed', null] },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
} as const;

export const cronRunView = {
  type: 'object',
  required: ['runId', 'eventId', 'scheduledFor', 'startedAt', 'finishedAt', 'status'],
  properties: {
    runId: { type: 'string' },
    eventId: { type: 'string' },
    scheduledFor: { type: 'string' },
    startedAt: { type: 'string' },
    finishedAt: nullableString,
    status: { type: 'string', enum: ['running', 'completed', 'failed'] },
    error: { type: 'string' },
    deniedTools: { type: 'array', items: { type: 'string' } },
    catchUp: { type: 'object', properties: { missedSlots: { type: 'integer' }, lastMissedSlot: { type: 'string' } } },
  },
} as const;

const cronJobParams = {
  type: 'object',
  required: ['cronJobId'],
  properties: { cronJobId: { type: 'string', maxLength: 100 } },
} as const;

// Types and presence only: the core checks each field's content and names it in the 400.
const createBody = {
  type: 'object',
  required: ['name', 'agentId', 'conversationKey', 'prompt', 'scheduleExpression'],
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    agentId: { type: 'string' },
    conversationKey: { type: 'string' },
    prompt: { type: 'string' },
    scheduleExpression: { type: 'string' },
    timezone: { type: 'string' },
  },
} as const;

const patchBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: ['active', 'paused'] },
    name: { type: 'string' },
    prompt: { type: 'string' },
    scheduleExpression: { type: 'string' },
    timezone: { type: 'string' },
    conversationKey: { type: 'string' },
  },
} as const;

const tags = ['cron-jobs'];

/** An account's cron jobs and their runs, under `/accounts/me/cron-jobs`. */
export function registerCronJobRoutes(app: FastifyInstance, core: HarnessCore): void {
  requireAccount(app, core, (scope) => {
    scope.post<{ Body: CronJobInput }>(
      '/accounts/me/cron-jobs',
      {
        schema: {
          summary: 'Create a cron job',
          description: 'A bad expression or zone is a 400 saying what is wrong.',
          tags,
          headers: idempotencyKeyHeaders,
          body: createBody,
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
      { schema: { summary: "The account's cron jobs", tags, response: { 200: { type: 'object', description: "The account's cron jobs.", required: ['cronJobs'], properties: { cronJobs: { type: 'array', items: cronJobView } } } } } },
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
          body: patchBody,
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
          response: { 200: { type: 'object', description: 'The newest runs first.', required: ['runs'], properties: { runs: { type: 'array', items: cronRunView } } }, ...errorResponses(400, 404) },
        },
      },
      async (request) => ({ runs: await core.cronJobs.runs(currentAccount(request).accountId, request.params.cronJobId) }),
    );
  });
}
