/**
 * Cron jobs: the stored jobs and runs, the service behind the endpoints, and the scheduler
 * that fires them. See docs/cron-jobs.md.
 */
export type { CronJobStatus, CronJobView, CronRun, CronRunStatus } from './cron-job.js';
export { CronJobs, cronJobsNamingAgent, type CronJobInput, type CronJobPatch } from './cron-jobs.js';
export { CronJobsRepository } from './cron-jobs-repository.js';
export { CronScheduler, type CronStartReport } from './cron-scheduler.js';
export { asyncTurnLauncher, type CronRunLauncher, type CronRunRequest, type CronEventOutcome } from './cron-run-launcher.js';
export { systemClock, type SchedulerClock, type SchedulerTimer } from './scheduler-clock.js';
