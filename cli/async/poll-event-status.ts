import { setTimeout as delay } from 'node:timers/promises';
import type { ApiClient } from '../api-client.js';
import { ApiError, CliError } from '../cli-error.js';
import { isFinalStatus, statusLabel, type EventStatus } from './event-status.js';

export interface PollOptions {
  /** Pause between two GETs. */
  intervalMs: number;
  /** Gives up (exit 1) when the event is still going after this long; 0 waits forever. */
  timeoutMs: number;
  /** Stops the polling (Ctrl-C); the promise then rejects with `PollStoppedError`. */
  signal: AbortSignal;
  /** Called with every answer, the first one included. */
  onUpdate(event: EventStatus): void;
  /** The command that waits for the event again, named when the time runs out. */
  resumeCommand: string;
}

/** The user stopped waiting; the event itself goes on in the service. */
export class PollStoppedError extends Error {}

/** How many GETs in a row may fail to connect (or get a 5xx) before polling gives up: a service restart takes a moment. */
const maxConsecutiveFailures = 3;

export function statusPath(eventId: string): string {
  return `/status/${encodeURIComponent(eventId)}`;
}

/** Wait `ms`, or less when `signal` aborts; resolves either way. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch(() => undefined);
}

/** A failure worth another try: no connection, or the service's own 5xx. A 4xx (404: no such event) is final. */
function isTransient(error: unknown): boolean {
  if (error instanceof ApiError) return error.status >= 500;
  return error instanceof CliError;
}

/**
 * Polls `GET /status/{eventId}` until the event is completed, failed or awaiting approval,
 * and resolves with that last answer.
 */
export async function pollEventStatus(agentService: ApiClient, eventId: string, options: PollOptions): Promise<EventStatus> {
  const startedAt = Date.now();
  let failures = 0;
  for (;;) {
    if (options.signal.aborted) throw new PollStoppedError('stopped');
    let event: EventStatus | undefined;
    try {
      event = await agentService.send<EventStatus>('GET', statusPath(eventId));
      failures = 0;
    } catch (error) {
      failures += 1;
      if (!isTransient(error) || failures >= maxConsecutiveFailures) throw error;
    }
    if (options.signal.aborted) throw new PollStoppedError('stopped');
    if (event) {
      options.onUpdate(event);
      if (isFinalStatus(event.status)) return event;
      if (options.timeoutMs > 0 && Date.now() - startedAt >= options.timeoutMs) {
        throw new CliError(`event ${eventId} is still ${statusLabel(event)} after ${Math.round(options.timeoutMs / 1000)} s; check again with: ${options.resumeCommand}`);
      }
    }
    await sleep(options.intervalMs, options.signal);
  }
}
