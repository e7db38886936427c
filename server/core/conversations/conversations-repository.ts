import type { TableStore } from '../storage/table-store.js';
import type { ConversationState } from './conversation.js';

const stateKey = 'state';

function partitionOf(accountId: string, agentId: string, conversationKey: string): string {
  return JSON.stringify([accountId, agentId, conversationKey]);
}

export interface VersionedConversation {
  state: ConversationState;
  /** `null` when the conversation has never been written. */
  version: number | null;
}

/** Conversations, one partition each: its messages and approvals in one versioned row. */
export class ConversationsRepository {
  constructor(private readonly table: TableStore<ConversationState>) {}

  async load(accountId: string, agentId: string, conversationKey: string, now: string): Promise<VersionedConversation> {
    const row = await this.table.get(partitionOf(accountId, agentId, conversationKey), stateKey);
    if (row) return { state: row.value, version: row.version };
    return { state: { accountId, agentId, conversationKey, messages: [], approvals: [], createdAt: now, updatedAt: now }, version: null };
  }

  async find(accountId: string, agentId: string, conversationKey: string): Promise<ConversationState | undefined> {
    return (await this.table.get(partitionOf(accountId, agentId, conversationKey), stateKey))?.value;
  }

  /** Write the state if nobody changed it since `version` was read; throws ConditionFailedError otherwise. */
  async save(state: ConversationState, version: number | null): Promise<number> {
    const [written] = await this.table.write(partitionOf(state.accountId, state.agentId, state.conversationKey), [
      { type: 'put', key: stateKey, value: state, expectedVersion: version },
    ]);
    return written?.version ?? 0;
  }
}
