import type { AsyncRequests } from '../events/async-requests.js';
import type { EventRecord, EventStatus } from '../events/event.js';
import type { EventsRepository } from '../events/events-repository.js';
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
  status: EventStatus;
  error?: string;
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

/** Cron runs as async turns on the in-process worker, transport `cron` (approvals denied). */
export function asyncTurnLauncher(asyncRequests: AsyncRequests, events: EventsRepository): CronRunLauncher {
  const outcomeOf = (event: EventRecord): CronEventOutcome => ({ eventId: event.eventId, status: event.status, ...(event.error ? { error: event.error } : {}) });
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
      const event = await events.get(eventId);
      return event && event.accountId === accountId ? outcomeOf(event) : undefined;
    },
    onOutcome: (listener) => events.onStatusChange((event) => listener(outcomeOf(event))),
  };
}
