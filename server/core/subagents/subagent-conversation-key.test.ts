import { describe, expect, it } from 'vitest';
import { isValidConversationKey } from '../conversations/conversation.js';
import { subagentConversationKey, subagentDepth } from './subagent-conversation-key.js';

describe('subagent conversation keys', () => {
  it("derive from the parent's key and carry the depth", () => {
    expect(subagentDepth('chat-1')).toBe(0);
    const child = subagentConversationKey('chat-1', 'helper');
    expect(child).toBe('chat-1/subagent/helper');
    expect(subagentDepth(child)).toBe(1);
    expect(subagentDepth(subagentConversationKey(child, 'other'))).toBe(2);
  });

  it('stay within 256 characters and keep the depth when the parent key is long', () => {
    const parent = `${'x'.repeat(240)}/subagent/helper`;
    const child = subagentConversationKey(parent, 'a'.repeat(64));
    expect(isValidConversationKey(child)).toBe(true);
    expect(subagentDepth(child)).toBe(2);
    expect(subagentConversationKey(parent, 'a'.repeat(64))).toBe(child);
  });
});
