import type {
  Account,
  Agent,
  AgentConfig,
  AgentList,
  CreatedAccount,
  CronJob,
  CronJobCreateRequest,
  CronJobList,
  CronJobPatchRequest,
  CronRunList,
  SignupRequest,
  UsageQuery,
  UsageReport,
  WorkspaceListing,
  WorkspaceWritten,
} from '../contract/contract-types.js';
import { type CallOptions, type HttpTransport, segment } from './http-transport.js';

/** Calls of the account service: accounts, agents, cron jobs and workspace files. */

const agentPath = (agentId: string) => `/accounts/me/agents/${segment(agentId)}`;
const cronJobPath = (cronJobId: string) => `/accounts/me/cron-jobs/${segment(cronJobId)}`;

function queryString(query: Record<string, string | undefined>): string {
  const entries = Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries).toString()}`;
}

export function accountCalls(transport: HttpTransport) {
  return {
    /** `POST /accounts`: a new account and its secret (shown this once). `adminSecret` when sign-up is closed. */
    signup: (body: SignupRequest, options: CallOptions & { adminSecret?: string } = {}) =>
      transport.json<CreatedAccount>('account', 'POST', '/accounts', { ...options, json: body, ...(options.adminSecret ? { bearer: options.adminSecret } : {}) }),
    /** `GET /accounts/me`. */
    me: (options: CallOptions = {}) => transport.json<Account>('account', 'GET', '/accounts/me', options),
    /** `GET /accounts/me/usage`: tokens per agent (or model) and day. */
    usage: (query: UsageQuery = {}, options: CallOptions = {}) => transport.json<UsageReport>('account', 'GET', `/accounts/me/usage${queryString(query)}`, options),
  };
}

export function agentCalls(transport: HttpTransport) {
  return {
    /** `GET /accounts/me/agents`: the account's agents, redacted. */
    list: async (options: CallOptions = {}) => (await transport.json<AgentList>('account', 'GET', '/accounts/me/agents', options)).agents,
    get: (agentId: string, options: CallOptions = {}) => transport.json<Agent>('account', 'GET', agentPath(agentId), options),
    /** `PUT`: creates or replaces the agent's config (a redacted secret sent back keeps the stored one). */
    put: (agentId: string, config: AgentConfig, options: CallOptions = {}) => transport.json<Agent>('account', 'PUT', agentPath(agentId), { ...options, json: { config } }),
    /** `PATCH`: an RFC 7396 merge patch of the config (`null` removes a field). */
    patch: (agentId: string, configPatch: AgentConfig, options: CallOptions = {}) =>
      transport.json<Agent>('account', 'PATCH', agentPath(agentId), { ...options, json: { config: configPatch }, contentType: 'application/merge-patch+json' }),
    delete: async (agentId: string, options: CallOptions = {}): Promise<void> => {
      await transport.json('account', 'DELETE', agentPath(agentId), options);
    },
  };
}

export function cronJobCalls(transport: HttpTransport) {
  const update = (cronJobId: string, patch: CronJobPatchRequest, options: CallOptions = {}) => transport.json<CronJob>('account', 'PATCH', cronJobPath(cronJobId), { ...options, json: patch });
  return {
    create: (body: CronJobCreateRequest, options: CallOptions = {}) => transport.json<CronJob>('account', 'POST', '/accounts/me/cron-jobs', { ...options, json: body }),
    list: async (options: CallOptions = {}) => (await transport.json<CronJobList>('account', 'GET', '/accounts/me/cron-jobs', options)).cronJobs,
    get: (cronJobId: string, options: CallOptions = {}) => transport.json<CronJob>('account', 'GET', cronJobPath(cronJobId), options),
    update,
    pause: (cronJobId: string, options: CallOptions = {}) => update(cronJobId, { status: 'paused' }, options),
    resume: (cronJobId: string, options: CallOptions = {}) => update(cronJobId, { status: 'active' }, options),
    delete: async (cronJobId: string, options: CallOptions = {}): Promise<void> => {
      await transport.json('account', 'DELETE', cronJobPath(cronJobId), options);
    },
    /** The job's recent runs, newest first. */
    runs: async (cronJobId: string, options: CallOptions = {}) => (await transport.json<CronRunList>('account', 'GET', `${cronJobPath(cronJobId)}/runs`, options)).runs,
  };
}

/** A workspace path as URL segments: each segment encoded, the slashes kept. */
const filePath = (path: string) => path.split('/').map(segment).join('/');

export function workspaceCalls(transport: HttpTransport) {
  const base = (agentId: string, workspace: string) => `${agentPath(agentId)}/workspaces/${segment(workspace)}/files`;
  return {
    /** Every file under `path` (the root by default), recursively. */
    list: (agentId: string, workspace: string, path?: string, options: CallOptions = {}) =>
      transport.json<WorkspaceListing>('account', 'GET', `${base(agentId, workspace)}${path && path !== '.' ? queryString({ path }) : ''}`, options),
    /** The file's bytes. */
    download: async (agentId: string, workspace: string, path: string, options: CallOptions = {}): Promise<Uint8Array> => {
      const answer = await transport.send('account', 'GET', `${base(agentId, workspace)}/${filePath(path)}`, { ...options, accept: 'application/octet-stream' });
      return new Uint8Array(await answer.arrayBuffer());
    },
    /** Creates or replaces the file (and its folders). */
    upload: (agentId: string, workspace: string, path: string, content: Uint8Array | Blob | string, options: CallOptions = {}) =>
      transport.json<WorkspaceWritten>('account', 'PUT', `${base(agentId, workspace)}/${filePath(path)}`, { ...options, body: content, contentType: 'application/octet-stream' }),
    delete: async (agentId: string, workspace: string, path: string, options: CallOptions = {}): Promise<void> => {
      await transport.json('account', 'DELETE', `${base(agentId, workspace)}/${filePath(path)}`, options);
    },
  };
}
