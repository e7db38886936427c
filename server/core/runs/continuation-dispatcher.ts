import type { UIMessageChunk } from 'ai';
import type { RunQueue } from './run-queue.js';
import type { Logger } from '../logger.js';
import type { DeliveredTransport } from '../transports/transports.js';
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

/** Each transport's continuation delivery; none for those whose result is only the status row (`/async`, JSON, cron: the transports table's `continuationGoesTo`). */
export type ContinuationDeliveries = Partial<Record<DeliveredTransport, ContinuationDelivery>>;

/**
 * Hands claimed continuations to the run queue. A claimed continuation is handed over exactly
 * once per claim; after a restart, recovery hands over the ones claimed but not finished.
 */
export class ContinuationDispatcher implements ContinuationDispatch {
  constructor(
    private readonly queue: Pick<RunQueue, 'push'>,
    private readonly logger: Logger,
  ) {}

  dispatch(group: DispatchGroup): void {
    this.logger.info({ event: 'continuation', groupId: group.groupId, transport: group.delivery.transport, continuationEventId: group.continuation?.continuationEventId }, 'continuation dispatched');
    this.queue.push({ kind: 'continuation', groupId: group.groupId });
  }
}
