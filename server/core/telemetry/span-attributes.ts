/**
 * The names of the attributes the service puts on its spans: ids, names, kinds, counts and
 * outcomes. Never a secret, a prompt, a message or a tool's input or output (those only
 * through the AI SDK's own attributes, when content recording is on), and never the
 * conversation key, which may name a person (a channel chat, a phone number).
 */
export const spanAttribute = {
  accountId: 'harness.account.id',
  agentId: 'harness.agent.id',
  turnId: 'harness.turn.id',
  eventId: 'harness.event.id',
  transport: 'harness.transport',
  turnStatus: 'harness.turn.status',
  turnKind: 'harness.turn.kind',
  toolName: 'harness.tool.name',
  toolCallId: 'harness.tool.call_id',
  toolOutcome: 'harness.tool.outcome',
  approvalId: 'harness.approval.id',
  approved: 'harness.approval.approved',
  asyncResultId: 'harness.async_tool.result_id',
  asyncGroupId: 'harness.async_tool.group_id',
  asyncStatus: 'harness.async_tool.status',
  continuation: 'harness.async_tool.continuation',
  storageTable: 'harness.storage.table',
  storageVersion: 'harness.storage.version',
  cronJobId: 'harness.cron.job_id',
  cronSlot: 'harness.cron.slot',
  cronMissedSlots: 'harness.cron.missed_slots',
  channelProvider: 'harness.channel.provider',
  channelDeliveryId: 'harness.channel.delivery_id',
  channelOutcome: 'harness.channel.outcome',
  /** Only with content recording on. */
  conversationKey: 'harness.conversation.key',
} as const;

/** The span names, one per kind of work (low cardinality: ids go into attributes). */
export const spanName = {
  turn: 'harness.turn',
  admission: 'harness.turn.admission',
  storageWrite: 'harness.storage.write',
  toolCall: 'harness.tool.call',
  approvalWait: 'harness.tool.approval_wait',
  asyncWait: 'harness.tool.async_wait',
  asyncRequest: 'harness.async_request',
  completion: 'harness.async_tool.complete',
  continuation: 'harness.continuation',
  cronFire: 'harness.cron.fire',
  channelDelivery: 'harness.channel.delivery',
} as const;
