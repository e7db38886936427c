import { spanAttribute, spanName } from '../telemetry/span-attributes.js';
import { inSpan } from '../telemetry/spans.js';
import type { DeliveryRef } from './channel-deliveries-repository.js';

/**
 * One channel delivery on the channel worker: its turn and the reply posted to the provider,
 * with the provider and delivery id (never the message or the chat). A trace of its own: the
 * webhook was answered before the delivery ran.
 */
export function traceChannelDelivery(ref: DeliveryRef, run: () => Promise<void>): Promise<void> {
  return inSpan(
    spanName.channelDelivery,
    () => ({ [spanAttribute.accountId]: ref.accountId, [spanAttribute.agentId]: ref.agentId, [spanAttribute.channelProvider]: ref.provider, [spanAttribute.channelDeliveryId]: ref.deliveryId }),
    run,
    { root: true },
  );
}
