import type { Logger } from '../logger.js';
import type { TransportKind } from '../tools/tool-context.js';
import type { DispatchGroup } from './async-tool-result.js';

/** Runs the continuation of a settled dispatch group for one transport. */
export type ContinuationHandler = (group: DispatchGroup) => void;

/**
 * The seam where transports plug in their continuation (spec, dispatch group rule 3): direct
 * and `/async` turns re-drive the async worker (the default); the NATS worker and the channel
 * worker register their own handlers. A claimed continuation is handed over exactly once per
 * claim; after a restart, recovery hands over the ones claimed but not finished.
 */
export class ContinuationDispatcher {
  private readonly handlers = new Map<TransportKind, ContinuationHandler>();
  private fallback: ContinuationHandler | undefined;

  constructor(private readonly logger: Logger) {}

  register(transport: TransportKind, handler: ContinuationHandler): void {
    this.handlers.set(transport, handler);
  }

  /** The handler for transports with none of their own (the async worker). */
  setDefault(handler: ContinuationHandler): void {
    this.fallback = handler;
  }

  dispatch(group: DispatchGroup): void {
    const handler = this.handlers.get(group.delivery.transport) ?? this.fallback;
    if (!handler) {
      this.logger.error({ event: 'continuation', groupId: group.groupId, transport: group.delivery.transport }, 'no continuation handler');
      return;
    }
    this.logger.info({ event: 'continuation', groupId: group.groupId, transport: group.delivery.transport, continuationEventId: group.continuation?.continuationEventId }, 'continuation dispatched');
    handler(group);
  }
}
