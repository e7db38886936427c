import { describe, expect, it } from 'vitest';
import { limitsFromEnvironment } from './service-limits.js';

describe('service limits', () => {
  it('lets a conversation grow to 20,000 messages by default (context management bounds what a turn sends); HARNESS_LIMIT_CONVERSATION_MESSAGES sets it', () => {
    expect(limitsFromEnvironment({}).maxConversationMessages).toBe(20_000);
    expect(limitsFromEnvironment({ HARNESS_LIMIT_CONVERSATION_MESSAGES: '500' }).maxConversationMessages).toBe(500);
    expect(() => limitsFromEnvironment({ HARNESS_LIMIT_CONVERSATION_MESSAGES: '0' })).toThrow('HARNESS_LIMIT_CONVERSATION_MESSAGES must be a positive integer');
  });
});
