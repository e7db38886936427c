import type { UIMessageChunk } from 'ai';
import type { ContinuationJob } from './background-job.js';
import type { Logger } from '../logger.js';
import type { TransportKind } from '../tools/tool-context.js';
import type { TurnResult } from '../turns/turn-types.js';
import type { DispatchGroup } from '../async-tools/async-tool-result.js';
import type { ContinuationDispatch } from '../async-tools/async-tool-completions.js';

/**
 * How a continuation reaches the caller on one transport (NATS streams it to the reply
 * subject, channels post its text). Every continuation runs the same way, on the background
 * worker; a transport only says where its output goes.
 */
export interface ContinuationDelivery {
  /** Where the continuation's chunks go as they come; undefined when nobody listens. */
  stream?(group: DispatchGroup, turnId: string): ((chunk: UIMessageChunk) => void) | undefined;
  /** The continuation ran to its end. */
  finished?(group: DispatchGroup, result: TurnResult): Promise<void>;
  /** The continuation could not start (its account disabled, its agent gone...). */
  failedToStart?(group: DispatchGroup, error: unknown): Promise<void>;
}

/**
 * Hands claimed continuations to the background queue, and keeps each transport's delivery.
 * A claimed continuation is handed over exactly once per claim; after a restart, recovery
 * hands over the ones claimed but not finished.
 */
export class ContinuationDispatcher implements ContinuationDispatch {
  private readonly deliveries = new Map<TransportKind, ContinuationDelivery>();
  private enqueue: ((job: ContinuationJob) => void) | undefined;

  constructor(private readonly logger: Logger) {}

  register(transport: TransportKind, delivery: ContinuationDelivery): void {
    this.deliveries.set(transport, delivery);
  }

  /** The delivery of a transport; none for those whose result is only the status row (`/async`, JSON, cron). */
  deliveryFor(transport: TransportKind): ContinuationDelivery | undefined {
    return this.deliveries.get(transport);
  }

  /** Where dispatched continuations are queued (set once when the core is wired). */
  sendTo(enqueue: (job: ContinuationJob) => void): void {
    this.enqueue = enqueue;
  }

  dispatch(group: DispatchGroup): void {
    const fields = { event: 'continuation', groupId: group.groupId, transport: group.delivery.transport, continuationEventId: group.continuation?.continuationEventId };
    if (!this.enqueue) {
      this.logger.error(fields, 'no queue for continuations');
      return;
    }
    this.logger.info(fields, 'continuation dispatched');
    this.enqueue({ kind: 'continuation', groupId: group.groupId });
  }
}
