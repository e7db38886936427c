import { formatFields } from '../output.js';
import type { ClusterState } from './cluster-state.js';
import type { StoppedPart } from './cluster-stop.js';

/** Every URL of the cluster, as `cluster up` prints it; the database URL carries no password. */
export function formatClusterState(state: ClusterState, alreadyRunning: boolean): string {
  const rows: [string, string][] = [
    ...state.replicas.flatMap((replica): [string, string][] => [
      [`replica ${replica.index} account`, replica.accountServiceUrl],
      [`replica ${replica.index} agent`, `${replica.agentServiceUrl}  (pid ${replica.pid}, log ${replica.logFile})`],
    ]),
    ['NATS_URL', state.nats?.urls.join(',') ?? '(not started)'],
    ['nats websocket', state.nats?.websocketUrls.join(',') ?? '(not started)'],
    ['database', state.database ? `${state.database.url}  (pid ${state.database.pid})` : '(not started)'],
    ['fixture model', state.fixtures ? `${state.fixtures.modelUrl}  (api key ${state.fixtures.modelApiKey})` : '(not started)'],
    ['fixture search', state.fixtures?.searchUrl ?? '(not started)'],
    ['mock worker', state.fixtures?.mockWorkerUrl ?? '(not started)'],
    ['folder', state.folder],
  ];
  const heading = alreadyRunning ? `The cluster is already running (since ${state.startedAt}).` : `The cluster is running: ${state.replicas.length} replicas, 3 NATS servers, PostgreSQL.`;
  return [
    heading,
    formatFields(rows),
    '',
    'The replicas share the database, the NATS cluster (NATS_AUTH=jwt), the bucket folder and the secrets in',
    `${state.folder}/secrets.json. Point the CLI at any replica (--account-url, --agent-url): they are one service.`,
    'Stop it with: harness cluster down',
  ].join('\n');
}

/** What `cluster down` stopped, one line. */
export function formatStoppedParts(folder: string, parts: readonly StoppedPart[]): string {
  if (parts.length === 0) return `No cluster is running in ${folder}.`;
  const running = parts.filter((part) => part.wasRunning);
  const gone = parts.filter((part) => !part.wasRunning);
  const list = (entries: readonly StoppedPart[]): string => entries.map((part) => `${part.part} (pid ${part.pid})`).join(', ');
  return `Stopped the cluster in ${folder}: ${list(running) || 'nothing was running'}.${gone.length > 0 ? ` Already gone: ${list(gone)}.` : ''}`;
}
