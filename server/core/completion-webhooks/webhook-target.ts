import { AccountDisabledError } from '../accounts/account-status.js';
import { NotFoundError } from '../errors.js';
import type { AccountStatusCheck } from '../accounts/account-status.js';
import type { Agents } from '../agents/agents.js';
import type { AsyncRequestRecord } from '../runs/status-row.js';
import type { AsyncRequestView } from '../runs/async-requests.js';
import type { WebhookDelivery } from './webhook-delivery.js';

/** What reading an attempt's target needs: the account's state, the agent's webhook, the status row and its view. */
export interface WebhookTargetSources {
  agents: Pick<Agents, 'load'>;
  /** The status rows, read for each attempt's body. */
  rows: { get(eventId: string): Promise<AsyncRequestRecord | undefined> };
  /** The row's `/status` view: the body POSTed. */
  view: (row: AsyncRequestRecord) => AsyncRequestView;
  accountCheck: AccountStatusCheck;
}

/** Where and what one attempt sends, or why the delivery ends without it. */
export type WebhookTarget = { url: string; secret: string; body: string } | { dropped: string };

/** Where and what to send, read now: the account and the agent's current webhook, the row's view. */
export async function webhookTarget(options: WebhookTargetSources, delivery: WebhookDelivery): Promise<WebhookTarget> {
  try {
    await options.accountCheck(delivery.accountId);
  } catch (error) {
    if (error instanceof AccountDisabledError) return { dropped: 'the account is disabled' };
    if (error instanceof NotFoundError) return { dropped: 'the account no longer exists' };
    throw error;
  }
  let webhook;
  try {
    webhook = (await options.agents.load(delivery.accountId, delivery.agentId)).config.webhooks?.completion;
  } catch (error) {
    if (error instanceof NotFoundError) return { dropped: 'the agent no longer exists' };
    throw error;
  }
  if (!webhook) return { dropped: 'the agent no longer has config.webhooks.completion' };
  const row = await options.rows.get(delivery.eventId);
  if (!row) return { dropped: 'the status row no longer exists' };
  return { url: webhook.url, secret: webhook.secret, body: JSON.stringify(options.view(row)) };
}
