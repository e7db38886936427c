import { createHash } from 'node:crypto';
import type { AsyncRequestStatus } from '../runs/status-row.js';

/** `pending` until delivered (a 2xx answer) or given up (`failed`); both of those are final. */
export type WebhookDeliveryState = 'pending' | 'delivered' | 'failed';

/** One POST of a delivery: when, how long, and the receiver's status code or why there was none. */
export interface WebhookAttempt {
  attempt: number;
  startedAt: string;
  durationMs: number;
  statusCode?: number;
  error?: string;
}

/**
 * The record of one finish announced: one per status row and final status, whatever races or
 * retries. Never holds the secret or the body (the body is the row's `/status` view, read
 * again for each attempt: a finished row does not change).
 */
export interface WebhookDelivery {
  deliveryId: string;
  accountId: string;
  agentId: string;
  eventId: string;
  /** The status the row reached: the finish this delivery announces. */
  eventStatus: AsyncRequestStatus;
  state: WebhookDeliveryState;
  attempts: WebhookAttempt[];
  /** While `pending`: when the next attempt is due. */
  nextAttemptAt?: string;
  /** An attempt under way: no other worker starts one before `until` (then its worker is presumed dead). */
  claim?: { attempt: number; until: string };
  /** Why the delivery ended without (more) attempts: the account was disabled, the webhook removed... */
  error?: string;
  createdAt: string;
  updatedAt: string;
}

/** What `GET /agents/{agentId}/webhook-deliveries` shows of a delivery. */
export type WebhookDeliveryView = Omit<WebhookDelivery, 'accountId' | 'claim'>;

export interface WebhookDeliveryRef {
  accountId: string;
  agentId: string;
  deliveryId: string;
}

/**
 * The delivery's id, derived from the row and its final status, so every writer that learns
 * of the same finish names the same record and a second create is refused by storage.
 */
export function webhookDeliveryId(eventId: string, status: AsyncRequestStatus): string {
  return `whd_${createHash('sha256').update(`${eventId}\n${status}`).digest('hex').slice(0, 32)}`;
}

export function viewWebhookDelivery(delivery: WebhookDelivery): WebhookDeliveryView {
  const { accountId: _accountId, claim: _claim, ...view } = delivery;
  return view;
}
