import { useCallback, useEffect, useState } from 'react';
import { clientFor, type CronJob, type CronRun } from './harness-client.js';

interface CronJobsViewProps {
  secret: string;
}

const recentRuns = 5;

function when(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleString() : '—';
}

/** The account's cron jobs with their next and recent runs; pause and resume. */
export function CronJobsView({ secret }: CronJobsViewProps) {
  const [jobs, setJobs] = useState<CronJob[]>();
  const [runs, setRuns] = useState<Record<string, CronRun[]>>({});
  const [error, setError] = useState('');

  const load = useCallback(async () => {
    try {
      const client = clientFor(secret);
      const list = await client.playground.cronJobs();
      const entries = await Promise.all(list.map(async (job) => [job.cronJobId, await client.playground.cronRuns(job.cronJobId)] as const));
      setJobs(list);
      setRuns(Object.fromEntries(entries));
      setError('');
    } catch (failure) {
      setError((failure as Error).message);
    }
  }, [secret]);

  useEffect(() => {
    void load();
  }, [load]);

  const change = async (job: CronJob, action: 'pause' | 'resume') => {
    try {
      const client = clientFor(secret);
      await (action === 'pause' ? client.playground.pauseCronJob(job.cronJobId) : client.playground.resumeCronJob(job.cronJobId));
      await load();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  return (
    <main className="cron-jobs">
      <div className="chat-bar">
        <h2>Cron jobs</h2>
        <button type="button" onClick={() => void load()}>Refresh</button>
      </div>
      <p role="alert" className="error">{error}</p>
      {jobs === undefined ? <p className="note">Loading cron jobs…</p> : null}
      {jobs?.length === 0 ? <p className="note">No cron jobs in this account.</p> : null}
      <ul className="job-list">
        {jobs?.map((job) => (
          <li key={job.cronJobId} className="cron-job" aria-label={`Cron job ${job.name}`}>
            <h3>{job.name}</h3>
            <dl>
              <dt>Agent</dt>
              <dd>{job.agentId}</dd>
              <dt>Schedule</dt>
              <dd>
                <code>{job.scheduleExpression}</code> ({job.timezone})
              </dd>
              <dt>Status</dt>
              <dd data-cron-status={job.status}>{job.status}</dd>
              <dt>Next run</dt>
              <dd>{when(job.nextRunAt)}</dd>
              <dt>Last run</dt>
              <dd>
                {when(job.lastRunAt)} {job.lastRunStatus ? `(${job.lastRunStatus})` : ''}
              </dd>
            </dl>
            {job.status === 'active' ? (
              <button type="button" onClick={() => void change(job, 'pause')}>Pause {job.name}</button>
            ) : job.status === 'paused' ? (
              <button type="button" onClick={() => void change(job, 'resume')}>Resume {job.name}</button>
            ) : null}
            <h4>Recent runs</h4>
            {(runs[job.cronJobId] ?? []).length === 0 ? (
              <p className="note">No runs yet.</p>
            ) : (
              <ul className="runs">
                {(runs[job.cronJobId] ?? []).slice(0, recentRuns).map((run) => (
                  <li key={run.runId}>
                    {when(run.scheduledFor)}: {run.status}
                    {run.error ? ` (${run.error})` : ''}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </main>
  );
}
