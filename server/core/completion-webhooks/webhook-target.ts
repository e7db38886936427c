import { AccountDisabledError } from '../accounts/account-status.js';
import { NotFoundError } from '../errors.js';
import type { CompletionWebhooksOptions } from './completion-webhooks.js';
import type { WebhookDelivery } from './webhook-delivery.js';

/** Where and what one attempt sends, or why the delivery ends without it. */
export type WebhookTarget = { url: string; secret: string; body: string } | { dropped: string };

/** Where and what to send, read now: the account and the agent's current webhook, the row's view. */
export async function webhookTarget(options: Pick<CompletionWebhooksOptions, 'accountCheck' | 'agents' | 'rows' | 'view'>, delivery: WebhookDelivery): Promise<WebhookTarget> {
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
