import type { AccountStatusCheck } from '../accounts/account-status.js';
import type { Agents } from '../agents/agents.js';
import type { ContinuationDispatcher } from '../runs/continuation-dispatcher.js';
import type { JobQueueFactory } from '../coordination/job-queue.js';
import type { RateBudget } from '../limits/rate-budget.js';
import type { Logger } from '../logger.js';
import type { TableStore } from '../storage/table-store.js';
import type { TurnRunner } from '../turns/turn-runner.js';
import { ChannelDeliveriesRepository, type ChannelDelivery } from './channel-deliveries-repository.js';
import { ChannelWebhooks } from './channel-webhooks.js';
import type { ChannelSettings } from './channel-settings.js';
import { ChannelWorker } from './channel-worker.js';

/** The channel side of the core: webhooks in, background turns, replies out. */
export interface Channels {
  webhooks: ChannelWebhooks;
  worker: ChannelWorker;
  deliveries: ChannelDeliveriesRepository;
}

export interface ChannelsOptions {
  table: TableStore<ChannelDelivery>;
  agents: Agents;
  turns: TurnRunner;
  continuations: ContinuationDispatcher;
  logger: Logger;
  now: () => Date;
  fetch?: typeof fetch;
  /** Bounds on the providers' API answers (`HARNESS_CHANNEL_*`). */
  settings?: ChannelSettings;
  concurrency?: number;
  /** The per-agent webhook budget (`HARNESS_LIMIT_WEBHOOKS_PER_MINUTE`). */
  webhookLimiter?: RateBudget;
  /** Refuses a disabled account's webhooks before verification. */
  accountCheck?: AccountStatusCheck;
  /** Where deliveries wait (default: in memory; a shared queue across replicas). */
  queues?: JobQueueFactory;
}

/** Wires the channel pieces; registers the `channel` continuation handler. */
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
