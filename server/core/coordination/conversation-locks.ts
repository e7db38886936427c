/**
 * The per-conversation turn lock: turns of one conversation run one after another, so each
 * starts from the state the previous one left. In one process a `KeyedMutex`; across
 * replicas a lease in the shared database (`coordination/postgres/postgres-lease-locks.ts`).
 */
export interface ConversationLocks {
  /** Wait for the key, hold it; call the returned function (once) to release it. */
  acquire(key: string): Promise<() => void>;
}

/** The key a conversation is locked by: turns take it, and a cancel of a waiting run. */
export function conversationLockKey(accountId: string, agentId: string, conversationKey: string): string {
  return JSON.stringify([accountId, agentId, conversationKey]);
}
