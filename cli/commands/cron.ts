import { Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../cli-context.js';
import { commandHint, verbatim } from '../command-hint.js';
import { UsageError } from '../cli-error.js';
import { cronJobFields, cronJobsTable, cronRunsTable, type CronJob, type CronRun } from '../cron/cron-job-output.js';
import { nextFireTimes } from '../cron/next-fire-times.js';
import { formatInZone, localTimeZone } from '../cron/zoned-time.js';
import { formatTable, printJson, printText } from '../output.js';
import { parsePositiveInteger } from '../parse-values.js';
import { commandOptions, openAccountSession, withJsonOption, type CommonOptions } from '../session.js';

export const cronJobsPath = '/accounts/me/cron-jobs';
export const cronJobPath = (cronJobId: string): string => `${cronJobsPath}/${encodeURIComponent(cronJobId)}`;

export interface CronCreateOptions extends CommonOptions {
  name: string;
  agent: string;
  conversation: string;
  prompt: string;
  schedule: string;
  tz?: string;
}

export interface CronUpdateOptions extends CommonOptions {
  name?: string;
  conversation?: string;
  prompt?: string;
  schedule?: string;
  tz?: string;
}

export interface CronNextOptions extends CommonOptions {
  tz: string;
  count: number;
  from?: string;
}

function printJob(context: CliContext, options: CommonOptions, job: CronJob, headline?: string): void {
  if (options.json) return printJson(context.stdout, job);
  if (headline) printText(context.stdout, headline);
  printText(context.stdout, cronJobFields(job, localTimeZone(context.env)));
}

export async function createCronJob(context: CliContext, options: CronCreateOptions): Promise<void> {
  const { accountService } = await openAccountSession(context, options.profile);
  const body = { name: options.name, agentId: options.agent, conversationKey: options.conversation, prompt: options.prompt, scheduleExpression: options.schedule, ...(options.tz ? { timezone: options.tz } : {}) };
  const job = await accountService.send<CronJob>('POST', cronJobsPath, { body });
  printJob(context, options, job, `Created cron job ${job.cronJobId}.`);
}

export async function listCronJobs(context: CliContext, options: CommonOptions): Promise<void> {
  const { accountService } = await openAccountSession(context, options.profile);
  const reply = await accountService.send<{ cronJobs: CronJob[] }>('GET', cronJobsPath);
  if (options.json) return printJson(context.stdout, reply);
  if (reply.cronJobs.length === 0) {
    const example = commandHint(context.env, options.profile)('cron', 'create', '--name', 'N', '--agent', 'A', '--conversation', 'K', '--prompt', 'P', '--schedule', verbatim('"rate(1 hour)"'));
    return printText(context.stdout, `No cron jobs yet: create one with \`${example}\`.`);
  }
  printText(context.stdout, cronJobsTable(reply.cronJobs, localTimeZone(context.env)));
}

export async function getCronJob(context: CliContext, cronJobId: string, options: CommonOptions): Promise<void> {
  const { accountService } = await openAccountSession(context, options.profile);
  printJob(context, options, await accountService.send<CronJob>('GET', cronJobPath(cronJobId)));
}

/** PATCH: `pause`, `resume` and `update` all come here. */
export async function patchCronJob(context: CliContext, cronJobId: string, body: Record<string, string>, options: CommonOptions, headline: (job: CronJob) => string): Promise<void> {
  if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give at least one of --name, --prompt, --schedule, --tz, --conversation');
  const { accountService } = await openAccountSession(context, options.profile);
  const job = await accountService.send<CronJob>('PATCH', cronJobPath(cronJobId), { body });
  printJob(context, options, job, headline(job));
}

export async function deleteCronJob(context: CliContext, cronJobId: string, options: CommonOptions): Promise<void> {
  const { accountService } = await openAccountSession(context, options.profile);
  await accountService.send('DELETE', cronJobPath(cronJobId));
  if (options.json) printJson(context.stdout, { cronJobId, deleted: true });
  else printText(context.stdout, `Deleted cron job ${cronJobId}.`);
}

export async function listCronRuns(context: CliContext, cronJobId: string, options: CommonOptions): Promise<void> {
  const { accountService } = await openAccountSession(context, options.profile);
  const reply = await accountService.send<{ runs: CronRun[] }>('GET', `${cronJobPath(cronJobId)}/runs`);
  if (options.json) return printJson(context.stdout, reply);
  if (reply.runs.length === 0) return printText(context.stdout, `Cron job ${cronJobId} has not run yet.`);
  printText(context.stdout, cronRunsTable(reply.runs, localTimeZone(context.env)));
}

/** Prints the next fire times of an expression, computed here with the service's engine. */
export function printNextFireTimes(context: CliContext, expression: string, options: CronNextOptions): void {
  const from = options.from === undefined ? new Date() : new Date(options.from);
  if (Number.isNaN(from.getTime())) throw new UsageError(`--from ${options.from} is not an ISO 8601 instant such as 2030-01-07T10:00:00Z`);
  const times = nextFireTimes(expression, options.tz, options.count, from);
  const localZone = localTimeZone(context.env);
  if (options.json) return printJson(context.stdout, { scheduleExpression: expression, timezone: options.tz, fireTimes: times.map((time) => time.toISOString()) });
  if (times.length === 0) return printText(context.stdout, `${expression} has no fire time after ${from.toISOString()}.`);
  const rows = times.map((time) => [formatInZone(time, options.tz), formatInZone(time, localZone), time.toISOString()]);
  printText(context.stdout, formatTable([`TIME (${options.tz})`, `LOCAL (${localZone})`, 'UTC'], rows));
}

function parseCount(value: string): number {
  const count = parsePositiveInteger(value);
  if (count > 1000) throw new InvalidArgumentError('expected at most 1000.');
  return count;
}

export function cronCommand(context: CliContext): Command {
  const create = withJsonOption(
    new Command('create')
      .description('create a cron job that sends a prompt to an agent on a schedule')
      .requiredOption('--name <name>', 'a name for the job')
      .requiredOption('--agent <agentId>', 'the agent that receives the prompt')
      .requiredOption('--conversation <key>', 'the conversation the runs go to')
      .requiredOption('--prompt <text>', 'the message sent at each run')
      .requiredOption('--schedule <expression>', 'EventBridge Scheduler syntax: "cron(0 9 ? * MON-FRI *)", "rate(5 minutes)", "at(2030-01-01T09:00:00)"')
      .option('--tz <zone>', 'IANA time zone the schedule is read in (default UTC)'),
  ).action(async (_options: unknown, command: Command) => createCronJob(context, commandOptions<CronCreateOptions>(command)));

  const list = withJsonOption(new Command('list').description("list the account's cron jobs with their next run")).action(async (_options: unknown, command: Command) =>
    listCronJobs(context, commandOptions(command)),
  );
  const get = withJsonOption(new Command('get').description('show one cron job').argument('<cronJobId>')).action(async (cronJobId: string, _options: unknown, command: Command) =>
    getCronJob(context, cronJobId, commandOptions(command)),
  );
  const pause = withJsonOption(new Command('pause').description('stop a job from firing until it is resumed').argument('<cronJobId>')).action(
    async (cronJobId: string, _options: unknown, command: Command) => patchCronJob(context, cronJobId, { status: 'paused' }, commandOptions(command), (job) => `Paused cron job ${job.cronJobId}.`),
  );
  const resume = withJsonOption(new Command('resume').description('resume a paused job (rate() starts counting again now)').argument('<cronJobId>')).action(
    async (cronJobId: string, _options: unknown, command: Command) => patchCronJob(context, cronJobId, { status: 'active' }, commandOptions(command), (job) => `Resumed cron job ${job.cronJobId}.`),
  );
  const update = withJsonOption(
    new Command('update')
      .description('change a job; a new schedule or zone takes effect at once')
      .argument('<cronJobId>')
      .option('--name <name>')
      .option('--conversation <key>')
      .option('--prompt <text>')
      .option('--schedule <expression>')
      .option('--tz <zone>'),
  ).action(async (cronJobId: string, _options: unknown, command: Command) => {
    const options = commandOptions<CronUpdateOptions>(command);
    const body: Record<string, string> = {};
    if (options.name !== undefined) body.name = options.name;
    if (options.conversation !== undefined) body.conversationKey = options.conversation;
    if (options.prompt !== undefined) body.prompt = options.prompt;
    if (options.schedule !== undefined) body.scheduleExpression = options.schedule;
    if (options.tz !== undefined) body.timezone = options.tz;
    await patchCronJob(context, cronJobId, body, options, (job) => `Updated cron job ${job.cronJobId}.`);
  });
  const remove = withJsonOption(new Command('delete').description('delete a job and its run history').argument('<cronJobId>')).action(
    async (cronJobId: string, _options: unknown, command: Command) => deleteCronJob(context, cronJobId, commandOptions(command)),
  );
  const runs = withJsonOption(new Command('runs').description("a job's recent runs, newest first").argument('<cronJobId>')).action(
    async (cronJobId: string, _options: unknown, command: Command) => listCronRuns(context, cronJobId, commandOptions(command)),
  );
  const next = withJsonOption(
    new Command('next')
      .description('print the next fire times of a schedule expression (computed locally, nothing is created)')
      .argument('<expression>')
      .option('--tz <zone>', 'IANA time zone', 'UTC')
      .option('-n, --count <n>', 'how many fire times', parseCount, 5)
      .option('--from <instant>', 'start from this ISO 8601 instant instead of now'),
  ).action(async (expression: string, _options: unknown, command: Command) => printNextFireTimes(context, expression, commandOptions<CronNextOptions>(command)));

  return new Command('cron')
    .description("manage the account's cron jobs")
    .addCommand(create)
    .addCommand(list)
    .addCommand(get)
    .addCommand(pause)
    .addCommand(resume)
    .addCommand(update)
    .addCommand(remove)
    .addCommand(runs)
    .addCommand(next);
}
