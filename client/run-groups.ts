import type {
  AgentSummaryList,
  AsyncSubmitted,
  CancelAnswer,
  CompactionAnswer,
  ChatAnswer,
  ChatRequest,
  CompletionAnswer,
  CompletionRequest,
  CronJob,
  CronJobList,
  CronRunList,
  StatusRow,
  StoredConversation,
} from '../contract/contract-types.js';
import { HarnessResponseError } from './harness-errors.js';
import { type CallOptions, type HttpTransport, segment } from './http-transport.js';
import { chatStreamOf, checkEventStream, type HarnessChatStream } from './ui-message-stream.js';

/** Calls of the agent service: turns, async requests, status rows, cancel, completions. */

const agentPath = (agentId: string) => `/agents/${segment(agentId)}`;
const conversationPath = (agentId: string, conversationKey: string) => `${agentPath(agentId)}/conversations/${segment(conversationKey)}`;

/** The statuses after which a status row changes no more without the caller (an approval waits for an answer). */
export const settledStatuses: readonly StatusRow['status'][] = ['completed', 'failed', 'cancelled', 'awaiting_approval'];

export interface WaitOptions {
  /** Between two reads of the status row (default 500). */
  intervalMilliseconds?: number;
  /** Give up (a `HarnessResponseError`) after this long (default: never). */
  timeoutMilliseconds?: number;
  /** When to stop (default: the status is one of `settledStatuses`). */
  until?: (row: StatusRow) => boolean;
  signal?: AbortSignal;
}

function sleep(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function chatCalls(transport: HttpTransport) {
  return {
    /**
     * Runs a turn and answers its end state (JSON). `eventId` is the turn's event (from the
     * `X-Harness-Event-Id` header when the body does not name one).
     */
    send: async (agentId: string, body: ChatRequest, options: CallOptions = {}): Promise<ChatAnswer & { eventId?: string }> => {
      const answer = await transport.send('agent', 'POST', `${agentPath(agentId)}/chat`, { ...options, json: body });
      const parsed = (await answer.json()) as ChatAnswer;
      const eventId = parsed.eventId ?? answer.headers.get('x-harness-event-id') ?? undefined;
      return eventId === undefined ? parsed : { ...parsed, eventId };
    },
    /** Runs a turn and streams it: the AI SDK UI message chunks, parsed from SSE. A refused turn throws before the first chunk. */
    stream: async (agentId: string, body: ChatRequest, options: CallOptions = {}): Promise<HarnessChatStream> => {
      const path = `${agentPath(agentId)}/chat`;
      const answer = await transport.send('agent', 'POST', path, { ...options, json: body, accept: 'text/event-stream' });
      await checkEventStream(answer, 'POST', path);
      return chatStreamOf(answer);
    },
    /**
     * The rest of a turn's stream after `lastChunkId` (the whole running turn without it);
     * undefined when nothing is running and nothing is left to send (204).
     */
    resume: async (agentId: string, conversationKey: string, options: CallOptions & { lastChunkId?: string } = {}): Promise<HarnessChatStream | undefined> => {
      const path = `${conversationPath(agentId, conversationKey)}/stream`;
      const headers = { ...options.headers, ...(options.lastChunkId === undefined ? {} : { 'last-event-id': options.lastChunkId }) };
      const answer = await transport.send('agent', 'GET', path, { ...options, headers, accept: 'text/event-stream' });
      if (answer.status === 204) return undefined;
      await checkEventStream(answer, 'GET', path);
      return chatStreamOf(answer);
    },
    /** The stored conversation: its model messages and the approvals still pending. */
    conversation: (agentId: string, conversationKey: string, options: CallOptions = {}) => transport.json<StoredConversation>('agent', 'GET', conversationPath(agentId, conversationKey), options),
    /**
     * Compacts the conversation now: everything before its latest turn summarized and stored as a
     * marker. 409 `conversation_busy` (a `ConversationBusyError`) while a turn runs on it.
     */
    compact: (agentId: string, conversationKey: string, options: CallOptions = {}) => transport.json<CompactionAnswer>('agent', 'POST', `${conversationPath(agentId, conversationKey)}/compact`, options),
  };
}

export function asyncCalls(transport: HttpTransport) {
  const status = (eventId: string, options: CallOptions = {}) => transport.json<StatusRow>('agent', 'GET', `/status/${segment(eventId)}`, options);
  return {
    /** Queues a turn (202): its status row tells where it stands. */
    submit: (agentId: string, body: ChatRequest, options: CallOptions = {}) => transport.json<AsyncSubmitted>('agent', 'POST', `${agentPath(agentId)}/async`, { ...options, json: body }),
    /** `GET /status/{eventId}`: an `/async` request's, a cron run's or a waiting turn's status row. */
    status,
    /** Reads the status row until it settles (`completed`, `failed`, `cancelled`, `awaiting_approval`, or `until`). */
    wait: async (eventId: string, options: WaitOptions = {}): Promise<StatusRow> => {
      const until = options.until ?? ((row: StatusRow) => settledStatuses.includes(row.status));
      const deadline = options.timeoutMilliseconds === undefined ? undefined : Date.now() + options.timeoutMilliseconds;
      for (;;) {
        const row = await status(eventId, options.signal ? { signal: options.signal } : {});
        if (until(row)) return row;
        if (deadline !== undefined && Date.now() >= deadline) throw new HarnessResponseError(`event ${eventId} is still ${row.status} after ${options.timeoutMilliseconds} ms`);
        await sleep(options.intervalMilliseconds ?? 500, options.signal);
      }
    },
  };
}

export function runControlCalls(transport: HttpTransport) {
  return {
    /** Cancels a run by its event: the running turn stops, a waiting run is closed, a queued request never starts. 409 when nothing runs. */
    cancel: (eventId: string, options: CallOptions = {}) => transport.json<CancelAnswer>('agent', 'POST', `/status/${segment(eventId)}/cancel`, options),
    /** Cancels whatever runs on a conversation. 409 when nothing runs. */
    cancelConversation: (agentId: string, conversationKey: string, options: CallOptions = {}) =>
      transport.json<CancelAnswer>('agent', 'POST', `${conversationPath(agentId, conversationKey)}/cancel`, options),
    /** Settles an external async tool call once (a settled call is a 409). */
    complete: (resultId: string, outcome: CompletionRequest, options: CallOptions = {}) =>
      transport.json<CompletionAnswer>('agent', 'POST', `/async-tools/${segment(resultId)}/complete`, { ...options, json: outcome }),
  };
}

/** The account-service reads the agent service answers for the web playground (same origin, no CORS). */
export function playgroundCalls(transport: HttpTransport) {
  const cronJobPath = (cronJobId: string) => `/playground/api/cron-jobs/${segment(cronJobId)}`;
  return {
    agents: async (options: CallOptions = {}) => (await transport.json<AgentSummaryList>('agent', 'GET', '/playground/api/agents', options)).agents,
    cronJobs: async (options: CallOptions = {}) => (await transport.json<CronJobList>('agent', 'GET', '/playground/api/cron-jobs', options)).cronJobs,
    cronRuns: async (cronJobId: string, options: CallOptions = {}) => (await transport.json<CronRunList>('agent', 'GET', `${cronJobPath(cronJobId)}/runs`, options)).runs,
    pauseCronJob: (cronJobId: string, options: CallOptions = {}) => transport.json<CronJob>('agent', 'POST', `${cronJobPath(cronJobId)}/pause`, options),
    resumeCronJob: (cronJobId: string, options: CallOptions = {}) => transport.json<CronJob>('agent', 'POST', `${cronJobPath(cronJobId)}/resume`, options),
  };
}
