import { AccountDisabledError } from '../accounts/account-status.js';
import type { Agents } from '../agents/agents.js';
import type { DispatchGroup } from '../async-tools/async-tool-result.js';
import type { ContinuationDelivery } from '../runs/continuation-dispatcher.js';
import { type ChannelDeliveryJob, channelDeliveryJobKey } from './channel-delivery-job.js';
import { inMemoryJobQueues } from '../coordination/bounded-job-queue.js';
import type { JobQueue, JobQueueFactory } from '../coordination/job-queue.js';
import { ConversationBusyError, RateLimitedError } from '../errors.js';
import type { Logger } from '../logger.js';
import { spanAttribute } from '../telemetry/span-attributes.js';
import { annotateActiveSpan } from '../telemetry/spans.js';
import { runTurnToEnd } from '../runs/run-turn-to-end.js';
import type { TurnResult } from '../turns/turn-types.js';
import type { TurnRunner } from '../turns/turn-runner.js';
import { transports } from '../transports/transports.js';
import type { ReplyTarget } from './channel-adapter.js';
import { getChannelAdapter, isChannelProvider } from './channel-registry.js';
import { channelConfigOf } from './channel-config.js';
import { traceChannelDelivery } from './channel-delivery-span.js';
import type { ChannelDeliveriesRepository, DeliveryRef } from './channel-deliveries-repository.js';
import { sendReplyRequests } from './channel-reply-sender.js';
import type { ChannelSettings } from './channel-settings.js';
import { apologyText, busyText, channelDenialReason, replyTextsFor } from './channel-reply-text.js';
import { deliveryMemoryMs } from './webhook-helpers.js';

export interface ChannelWorkerOptions {
  agents: Agents;
  turns: TurnRunner;
  deliveries: ChannelDeliveriesRepository;
  logger: Logger;
  now: () => Date;
  fetch?: typeof fetch;
  /** Bounds on the providers' API answers (default `defaultChannelSettings`). */
  settings?: ChannelSettings;
  /** Turns run at once (default 4). */
  concurrency?: number;
  /** Where deliveries wait (default: in memory). */
  queues?: JobQueueFactory;
  /** Finished deliveries older than this are forgotten at boot (default `deliveryMemoryMs`, 7 days). */
  retentionMs?: number;
}

export interface ChannelRecoveryReport {
  requeued: number;
  pruned: number;
}

/** The conversation key of a channel chat or thread. */
export function channelConversationKey(provider: string, conversationId: string): string {
  return `${provider}:${conversationId}`;
}

/**
 * Runs channel turns in the background, with bounded concurrency, and posts their replies
 * through the provider's API. Its queue lives in memory, its truth in the deliveries table:
 * a delivery stays `accepted` until processed, and `recover()` puts those back on the queue
 * after a restart. It is also the `channel` continuation delivery: after `external-dispatch`
 * tools settle, the continuation (run by the background worker) replies in the chat or
 * thread the turn came from.
 */
export class ChannelWorker {
  private readonly queue: JobQueue<ChannelDeliveryJob>;
  /** Deliveries queued or running, so a recovery scan cannot queue one twice. */
  private readonly inFlight = new Set<string>();

  constructor(private readonly options: ChannelWorkerOptions) {
    this.queue = (options.queues ?? inMemoryJobQueues)((job: ChannelDeliveryJob) => this.run(job), options.concurrency ?? 4, { name: 'channel-deliveries', keyOf: channelDeliveryJobKey });
  }

  /** The `channel` continuation delivery: the continuation's answer is posted where the turn came from. */
  readonly continuationDelivery: ContinuationDelivery = {
    finished: (group, result) => this.replyToContinuation(group, replyTextsFor(result), result.status),
    failedToStart: (group, error) => this.continuationFailedToStart(group, error),
  };

  /** Processes an accepted delivery in the background. */
  enqueue(ref: DeliveryRef): void {
    // A shared queue keeps one job per delivery itself, and may run it on another replica.
    if (this.queue.deduplicates) return this.queue.push({ kind: 'channel-delivery', ref });
    const key = refKey(ref);
    if (this.inFlight.has(key)) return;
    this.inFlight.add(key);
    this.queue.push({ kind: 'channel-delivery', ref });
  }

  /** Re-queues deliveries left `accepted` by a stopped process; forgets old finished ones. */
  async recover(): Promise<ChannelRecoveryReport> {
    const report: ChannelRecoveryReport = { requeued: 0, pruned: 0 };
    const horizon = this.options.now().getTime() - (this.options.retentionMs ?? deliveryMemoryMs);
    for (const delivery of await this.options.deliveries.all()) {
      if (delivery.status === 'accepted') {
        this.enqueue(delivery);
        report.requeued += 1;
      } else if (Date.parse(delivery.finishedAt ?? delivery.acceptedAt) < horizon) {
        await this.options.deliveries.remove(delivery);
        report.pruned += 1;
      }
    }
    if (report.requeued > 0 || report.pruned > 0) this.options.logger.info({ event: 'channel-recovery', ...report }, 'recovered channel deliveries');
    return report;
  }

  /** Resolves when nothing is queued or running (tests, shutdown). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Takes no new work and waits for what runs; queued deliveries stay `accepted` for the next boot. */
  stop(): Promise<void> {
    return this.queue.stop();
  }

  private async run(job: ChannelDeliveryJob): Promise<void> {
    try {
      await traceChannelDelivery(job.ref, () => this.runDelivery(job.ref));
    } catch (error) {
      // Only storage failures get here; the delivery stays `accepted` and the next boot retries it.
      this.options.logger.error({ event: 'channel-worker', kind: job.kind, error: (error as Error).message }, 'channel job failed');
    } finally {
      this.inFlight.delete(refKey(job.ref));
    }
  }

  private async runDelivery(ref: DeliveryRef): Promise<void> {
    const { deliveries, turns, logger } = this.options;
    // Re-read: a recovery scan may have queued a delivery that has finished since.
    const delivery = await deliveries.get(ref);
    if (!delivery || delivery.status !== 'accepted') return;
    const logFields = { accountId: ref.accountId, agentId: ref.agentId, provider: ref.provider, deliveryId: ref.deliveryId };
    let failure: string | undefined;
    try {
      const turn = await turns.start({
        accountId: delivery.accountId,
        agentId: delivery.agentId,
        conversationKey: channelConversationKey(delivery.provider, delivery.conversationId),
        input: { kind: 'user', message: { role: 'user', content: delivery.text } },
        transport: 'channel',
        approvalPolicy: transports.channel.approvals.policy,
        denialReason: channelDenialReason,
        replyTarget: { ...delivery.replyTarget, provider: delivery.provider },
      });
      const result = await runTurnToEnd(turn);
      if (result.status === 'failed') failure = `turn failed (${result.error?.kind ?? 'internal'})`;
      logger.info({ event: 'channel-turn', ...logFields, status: result.status, deniedApprovals: result.deniedApprovals.length }, 'channel turn finished');
      const sent = await this.reply(delivery.accountId, delivery.agentId, delivery.provider, delivery.replyTarget, replyTextsFor(result), logFields);
      if (!sent) failure ??= 'reply not sent';
    } catch (error) {
      if (error instanceof AccountDisabledError) {
        // A disabled account does nothing, replies (with its tokens) included.
        logger.info({ event: 'channel-turn', ...logFields }, 'channel delivery dropped: the account is disabled');
        await deliveries.finish(ref, { status: 'failed', error: 'account disabled' }, this.options.now().toISOString());
        return;
      }
      // A message that met a running turn and was refused (`reject`, or too many waiting) is told so, not apologised for.
      const busy = error instanceof ConversationBusyError || error instanceof RateLimitedError;
      failure = busy ? 'conversation busy' : 'turn could not start';
      logger.warn({ event: 'channel-turn', ...logFields, error: (error as Error).message }, busy ? 'channel message refused: the conversation is busy' : 'channel turn could not start');
      await this.reply(delivery.accountId, delivery.agentId, delivery.provider, delivery.replyTarget, [busy ? busyText : apologyText], logFields);
    }
    const finishedAt = this.options.now().toISOString();
    annotateActiveSpan(() => ({ [spanAttribute.channelOutcome]: failure === undefined ? 'done' : 'failed' }));
    await deliveries.finish(ref, failure === undefined ? { status: 'done' } : { status: 'failed', error: failure }, finishedAt);
  }

  private async replyToContinuation(group: DispatchGroup, texts: string[], status?: TurnResult['status']): Promise<void> {
    const { provider, ...target } = (group.delivery.replyTarget ?? {}) as ReplyTarget;
    const logFields = { accountId: group.accountId, agentId: group.agentId, provider, groupId: group.groupId };
    if (typeof provider !== 'string') {
      this.options.logger.error({ event: 'channel-continuation', ...logFields }, 'channel continuation without a reply target');
      return;
    }
    if (status) this.options.logger.info({ event: 'channel-continuation', ...logFields, status }, 'channel continuation finished');
    await this.reply(group.accountId, group.agentId, provider, target, texts, logFields);
  }

  /** A disabled account does nothing, replies included; any other failure gets the apology. */
  private async continuationFailedToStart(group: DispatchGroup, error: unknown): Promise<void> {
    const logFields = { accountId: group.accountId, agentId: group.agentId, groupId: group.groupId };
    if (error instanceof AccountDisabledError) {
      this.options.logger.info({ event: 'channel-continuation', ...logFields }, 'channel continuation dropped: the account is disabled');
      return;
    }
    this.options.logger.warn({ event: 'channel-continuation', ...logFields, error: (error as Error).message }, 'channel continuation could not start');
    await this.replyToContinuation(group, [apologyText]);
  }

  /**
   * Posts each text (split at the provider's limit) with the agent's current channel
   * settings. False when the channel is gone, the target does not parse, or a send failed.
   */
  private async reply(accountId: string, agentId: string, provider: string, target: ReplyTarget, texts: string[], logFields: Record<string, unknown>): Promise<boolean> {
    if (texts.length === 0) return true;
    const adapter = getChannelAdapter(provider);
    const agent = await this.options.agents.load(accountId, agentId).catch(() => undefined);
    const config = adapter && isChannelProvider(provider) ? channelConfigOf(agent?.config.channels, provider) : undefined;
    const parsedTarget = adapter?.replyTargetSchema.safeParse(target);
    if (!adapter || config === undefined || !parsedTarget?.success) {
      this.options.logger.warn({ event: 'channel-reply', ...logFields }, 'channel reply dropped: the agent or its channel settings are gone');
      return false;
    }
    for (const text of texts) {
      const requests = adapter.buildReplyRequests(config, parsedTarget.data, text);
      const sent = await sendReplyRequests(requests, {
        fetch: this.options.fetch ?? fetch,
        logger: this.options.logger,
        logFields,
        ...(this.options.settings ? { timeoutMs: this.options.settings.requestTimeoutMs, maxResponseBytes: this.options.settings.maxResponseBytes } : {}),
      });
      if (!sent) return false;
    }
    return true;
  }
}

function refKey(ref: DeliveryRef): string {
  return JSON.stringify([ref.accountId, ref.agentId, ref.provider, ref.deliveryId]);
}
