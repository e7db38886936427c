import type { AccountStatusCheck } from '../accounts/account-status.js';
import type { RateBudget } from '../limits/rate-budget.js';
import type { TableStore } from '../storage/table-store.js';
import { ChannelDeliveriesRepository, type ChannelDelivery } from './channel-deliveries-repository.js';
import { ChannelWebhooks } from './channel-webhooks.js';
import { ChannelWorker, type ChannelWorkerOptions } from './channel-worker.js';

/** The channel side of the core: webhooks in, background turns, replies out. */
export interface Channels {
  webhooks: ChannelWebhooks;
  worker: ChannelWorker;
  deliveries: ChannelDeliveriesRepository;
}

/** The worker's inputs (its repository is made here), and what the webhooks need besides. */
export interface ChannelsOptions extends Omit<ChannelWorkerOptions, 'deliveries'> {
  table: TableStore<ChannelDelivery>;
  /** The per-agent webhook budget (`HARNESS_LIMIT_WEBHOOKS_PER_MINUTE`). */
  webhookLimiter?: RateBudget;
  /** Refuses a disabled account's webhooks before verification. */
  accountCheck?: AccountStatusCheck;
}

/** Wires the channel pieces; the worker is also the `channel` continuation delivery (`worker.continuationDelivery`). */
export function createChannels(options: ChannelsOptions): Channels {
  const deliveries = new ChannelDeliveriesRepository(options.table);
  const worker = new ChannelWorker({ ...options, deliveries });
  const webhooks = new ChannelWebhooks({
    agents: options.agents,
    deliveries,
    worker,
    logger: options.logger,
    now: options.now,
    ...(options.webhookLimiter ? { limiter: options.webhookLimiter } : {}),
    ...(options.accountCheck ? { accountCheck: options.accountCheck } : {}),
  });
  return { webhooks, worker, deliveries };
}
