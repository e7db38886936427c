/** The cron job routes' bodies and views (`/accounts/me/cron-jobs`). */

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

// Types and presence only: the core checks each field's content and names it in the 400.
export const cronJobCreateBody = {
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

export const cronJobPatchBody = {
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

export const cronJobListView = { type: 'object', description: "The account's cron jobs.", required: ['cronJobs'], properties: { cronJobs: { type: 'array', items: cronJobView } } } as const;

export const cronRunListView = { type: 'object', description: 'The newest runs first.', required: ['runs'], properties: { runs: { type: 'array', items: cronRunView } } } as const;
