import type { AsyncRequestRecord, AsyncRequestStatus } from '../runs/status-row.js';
import type { AsyncRequestTransitions } from '../runs/status-row-transitions.js';
import type { AsyncRequests } from '../runs/async-requests.js';
import { ConditionFailedError } from '../storage/table-store.js';

/** What a cron fire asks of the rest of the core. */
export interface CronRunRequest {
  accountId: string;
  agentId: string;
  conversationKey: string;
  prompt: string;
  /** Chosen when the slot was claimed: submitting twice with it starts one run. */
  eventId: string;
}

export interface CronEventOutcome {
  eventId: string;
  status: AsyncRequestStatus;
  error?: string;
  /** Tools the run's turn did not run because they need an approval (a cron run cannot give one). */
  deniedTools?: string[];
}

/**
 * How the scheduler starts runs and learns how they end. The core's implementation submits
 * async turns; the benchmark's records the fire time instead.
 */
export interface CronRunLauncher {
  /** Start the run. Resolves `already-submitted` when an event with that id exists (an earlier attempt got through). */
  submit(request: CronRunRequest): Promise<'submitted' | 'already-submitted'>;
  /** Where the run's event stands now; undefined when there is no such event. */
  outcome(accountId: string, eventId: string): Promise<CronEventOutcome | undefined>;
  /** Observe status changes of events; returns the unsubscribe function. */
  onOutcome(listener: (outcome: CronEventOutcome) => void): () => void;
}

/**
 * Cron runs as async requests, transport `cron` (approvals denied): the scheduler submits one,
 * the background worker runs it, and the request's transitions tell the scheduler how it ended.
 */
export function asyncTurnLauncher(asyncRequests: AsyncRequests, transitions: Pick<AsyncRequestTransitions, 'onStatusChange'>): CronRunLauncher {
  const outcomeOf = (event: AsyncRequestRecord): CronEventOutcome => {
    const deniedTools = [...new Set((event.result?.deniedApprovals ?? []).map((denied) => denied.toolName))];
    return { eventId: event.eventId, status: event.status, ...(event.error ? { error: event.error } : {}), ...(deniedTools.length > 0 ? { deniedTools } : {}) };
  };
  return {
    async submit(request) {
      try {
        await asyncRequests.submit({
          accountId: request.accountId,
          agentId: request.agentId,
          conversationKey: request.conversationKey,
          input: { kind: 'user', message: { role: 'user', content: request.prompt } },
          transport: 'cron',
          eventId: request.eventId,
        });
        return 'submitted';
      } catch (error) {
        if (error instanceof ConditionFailedError) return 'already-submitted';
        throw error;
      }
    },
    async outcome(accountId, eventId) {
      const request = await asyncRequests.find(accountId, eventId);
      return request ? outcomeOf(request) : undefined;
    },
    onOutcome: (listener) => transitions.onStatusChange((request) => listener(outcomeOf(request))),
  };
}
