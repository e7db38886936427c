import type { ConversationState } from '../conversations/conversation.js';
import type { ConversationsRepository } from '../conversations/conversations-repository.js';
import { VersionConflictError } from '../errors.js';
import { ConditionFailedError } from '../storage/table-store.js';
import { spanAttribute, spanName } from '../telemetry/span-attributes.js';
import { inSpan } from '../telemetry/spans.js';

/** Conditional write of a conversation; another writer in between is a 409. Returns the new version. */
export async function saveConversation(conversations: ConversationsRepository, state: ConversationState, version: number | null): Promise<number> {
  try {
    return await inSpan(spanName.storageWrite, () => ({ [spanAttribute.storageTable]: 'conversations', [spanAttribute.storageVersion]: version ?? 0 }), () => conversations.save(state, version));
  } catch (error) {
    if (error instanceof ConditionFailedError) throw new VersionConflictError(`Conversation "${state.conversationKey}"`);
    throw error;
  }
}
