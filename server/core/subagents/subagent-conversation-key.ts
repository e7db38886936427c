import { createHash } from 'node:crypto';
import { isValidConversationKey } from '../conversations/conversation.js';

/** The separator that marks one level of subagent nesting in a conversation key. */
const marker = '/subagent/';

/**
 * How deep a conversation is in a chain of subagents: 0 for a conversation a user or a
 * channel started, one more for each `/subagent/` in its key. The depth travels in the key
 * so that it survives restarts, approvals and async continuations without extra state.
 */
export function subagentDepth(conversationKey: string): number {
  return conversationKey.split(marker).length - 1;
}

/**
 * The conversation of a subagent run from `parentKey`: `<parentKey>/subagent/<agentId>`,
 * so a parent calling the same subagent again continues that subagent's conversation.
 * When that would pass the 256-character limit, the parent part is replaced by a digest
 * followed by as many markers as the parent's depth, which keeps the depth right.
 */
export function subagentConversationKey(parentKey: string, agentId: string): string {
  const plain = `${parentKey}${marker}${agentId}`;
  if (isValidConversationKey(plain)) return plain;
  const digest = createHash('sha256').update(parentKey, 'utf8').digest('hex').slice(0, 32);
  return `sub-${digest}${`${marker}-`.repeat(subagentDepth(parentKey))}${marker}${agentId}`;
}
