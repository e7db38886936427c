import type { AccountStatusCheck } from '../accounts/account-status.js';
import type { Agents } from '../agents/agents.js';
import { NotFoundError, RateLimitedError, UnauthorizedError } from '../errors.js';
import type { RateBudget } from '../limits/rate-budget.js';
import type { Logger } from '../logger.js';
import type { InboundEvent, InboundWebhook } from './channel-adapter.js';
import { getChannelAdapter, isChannelProvider } from './channel-registry.js';
import { channelConfigOf } from './channel-config.js';
import type { ChannelDeliveriesRepository } from './channel-deliveries-repository.js';
import type { ChannelWorker } from './channel-worker.js';

/** What the HTTP layer sends back to the provider. */
export interface WebhookAnswer {
  status: number;
  body: unknown;
}

export interface WebhookAddress {
  accountId: string;
  agentId: string;
  provider: string;
}

/**
 * One message for every address that leads nowhere (unknown provider, account or agent, or
 * a provider the agent has not configured), so a caller cannot probe which part exists.
 */
export const webhookNotFoundMessage = 'No webhook at this address.';
export const webhookUnauthorizedMessage = 'The webhook request could not be verified.';

const acknowledged: WebhookAnswer = { status: 200, body: { ok: true } };

/**
 * Receives channel webhooks: finds the agent's settings for the provider, verifies the
 * request on its raw bytes, parses it, records a message delivery (a retry of the same
 * delivery id is acknowledged and dropped) and hands it to the worker. Answers at once:
 * the turn runs in the background.
 */
export class ChannelWebhooks {
  constructor(
    private readonly options: {
      agents: Agents;
      deliveries: ChannelDeliveriesRepository;
      worker: ChannelWorker;
      logger: Logger;
      now: () => Date;
      /** The per-agent webhook budget; counted after verification, so forged requests cannot spend it. */
      limiter?: RateBudget;
      /** Refuses a disabled account: its webhooks answer like an unknown address and run nothing. */
      accountCheck?: AccountStatusCheck;
    },
  ) {}

  /** Throws `NotFoundError`, `UnauthorizedError` or `RateLimitedError`; otherwise the answer for the provider. */
  async receive(address: WebhookAddress, request: Omit<InboundWebhook, 'now'>): Promise<WebhookAnswer> {
    const { accountId, agentId, provider } = address;
    if (!isChannelProvider(provider)) throw new NotFoundError(webhookNotFoundMessage);
    const enabled = await (this.options.accountCheck?.(accountId) ?? Promise.resolve()).then(
      () => true,
      () => false,
    );
    if (!enabled) throw new NotFoundError(webhookNotFoundMessage);
    const agent = await this.options.agents.load(accountId, agentId).catch(() => undefined);
    const config = channelConfigOf(agent?.config.channels, provider);
    if (config === undefined) throw new NotFoundError(webhookNotFoundMessage);
    // `config` was parsed with this adapter's own schema.
    const adapter = getChannelAdapter(provider)!;
    const inbound: InboundWebhook = { ...request, now: this.options.now() };
    const verification = adapter.verify(inbound, config);
    if (!verification.ok) {
      // The reason names a header or a check, never a secret; the caller learns nothing.
      this.options.logger.warn({ event: 'channel-webhook', accountId, agentId, provider, reason: verification.reason }, 'webhook verification failed');
      throw new UnauthorizedError(webhookUnauthorizedMessage);
    }
    const budget = await this.options.limiter?.take(JSON.stringify([accountId, agentId]));
    if (budget && !budget.allowed) {
      throw new RateLimitedError(`Too many webhook deliveries for this agent; retry in ${budget.retryAfterSeconds} s.`, budget.retryAfterSeconds);
    }
    const event = adapter.parse(inbound, config);
    return this.handle(address, event);
  }

  private async handle(address: WebhookAddress, event: InboundEvent): Promise<WebhookAnswer> {
    switch (event.kind) {
      case 'ignored':
        this.options.logger.debug({ event: 'channel-webhook', ...address, reason: event.reason }, 'webhook ignored');
        return acknowledged;
      case 'immediate':
        if (event.then) await this.handle(address, event.then);
        return { status: event.status, body: event.body };
      case 'message': {
        const claimed = await this.options.deliveries.claim({
          ...address,
          deliveryId: event.deliveryId,
          conversationId: event.conversationId,
          text: event.text,
          sender: event.sender,
          replyTarget: event.replyTarget,
          status: 'accepted',
          acceptedAt: this.options.now().toISOString(),
        });
        if (!claimed) {
          this.options.logger.info({ event: 'channel-webhook', ...address, deliveryId: event.deliveryId }, 'webhook retry dropped');
          return acknowledged;
        }
        this.options.worker.enqueue({ ...address, deliveryId: event.deliveryId });
        return acknowledged;
      }
    }
  }
}
