/** Calls to the agent service with the account secret as the bearer; same origin, so no CORS. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function apiRequest<T>(secret: string, path: string, init: RequestInit = {}): Promise<T | undefined> {
  const response = await fetch(path, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${secret}` } });
  if (response.status === 204) return undefined;
  const text = await response.text();
  const body = text ? (JSON.parse(text) as unknown) : undefined;
  if (!response.ok) {
    const message = (body as { error?: { message?: string } } | undefined)?.error?.message ?? `HTTP ${response.status}`;
    throw new ApiError(response.status, message);
  }
  return body as T;
}

export interface AgentSummary {
  agentId: string;
  tools: string[];
}

export interface CronJob {
  cronJobId: string;
  name: string;
  agentId: string;
  scheduleExpression: string;
  timezone: string;
  status: 'active' | 'paused' | 'completed';
  nextRunAt: string | null;
  lastRunAt: string | null;
  lastRunStatus: string | null;
}

export interface CronRun {
  runId: string;
  scheduledFor: string;
  startedAt: string;
  finishedAt: string | null;
  status: 'running' | 'completed' | 'failed';
  error?: string;
}

export interface StoredConversation {
  conversationKey: string;
  messages: unknown[];
  pendingApprovals: unknown[];
}

export const agentPath = (agentId: string) => `/agents/${encodeURIComponent(agentId)}`;
export const conversationPath = (agentId: string, conversationKey: string) => `${agentPath(agentId)}/conversations/${encodeURIComponent(conversationKey)}`;
