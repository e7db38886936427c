import { describe, expect, it } from 'vitest';
import { parseChatBody } from './chat-body.js';

describe('parseChatBody', () => {
  it('reads the native form with a string, a user message, or approval answers', () => {
    expect(parseChatBody({ conversationKey: 'k', message: 'hi' })).toEqual({ conversationKey: 'k', input: { kind: 'user', message: { role: 'user', content: 'hi' } }, form: 'native' });
    expect(parseChatBody({ conversationKey: 'k', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } }).input).toEqual({
      kind: 'user',
      message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    });
    expect(
      parseChatBody({ conversationKey: 'k', message: { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a1', approved: false, reason: 'no' }] } }).input,
    ).toEqual({ kind: 'approvals', answers: [{ approvalId: 'a1', approved: false, reason: 'no' }] });
  });

  it('reads the DefaultChatTransport form: id is the conversation, the last message the input', () => {
    const body = {
      id: 'chat-1',
      messages: [
        { id: '1', role: 'user', parts: [{ type: 'text', text: 'old' }] },
        { id: '2', role: 'user', parts: [{ type: 'text', text: 'new' }] },
      ],
    };
    expect(parseChatBody(body)).toEqual({ conversationKey: 'chat-1', input: { kind: 'user', message: { role: 'user', content: 'new' } }, form: 'transport' });
    const approval = { id: 'chat-1', messages: [{ id: '3', role: 'assistant', parts: [{ type: 'tool-x', state: 'approval-responded', approval: { id: 'a9', approved: true } }] }] };
    expect(parseChatBody(approval)).toEqual({ conversationKey: 'chat-1', input: { kind: 'approvals', answers: [{ approvalId: 'a9', approved: true }] }, form: 'transport', continuesMessageId: '3' });
  });

  it.each([
    [[], 'body must be a JSON object'],
    [{}, 'body must be {conversationKey, message} or {id, messages}'],
    [{ conversationKey: 'k' }, 'message is required'],
    [{ conversationKey: 'x'.repeat(257), message: 'hi' }, 'conversationKey must be a string of 1-256 characters'],
    [{ conversationKey: 'a\u0000b', message: 'hi' }, 'conversationKey must be a string of 1-256 characters'],
    [{ conversationKey: 'k', message: '   ' }, 'message must not be empty'],
    [{ conversationKey: 'k', message: 5 }, 'message must be a string, a user message or a tool message'],
    [{ conversationKey: 'k', message: { role: 'assistant', content: 'x' } }, 'message.role must be "user" or "tool"'],
    [{ conversationKey: 'k', message: { role: 'tool', content: [] } }, 'message.content must be a non-empty array'],
    [{ conversationKey: 'k', message: { role: 'tool', content: [{ type: 'tool-result' }] } }, 'message.content.0 must be a {type: "tool-approval-response"'],
    [{ conversationKey: 'k', message: { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a', approved: 'yes' }] } }, 'message.content.0.approved must be a boolean'],
    [{ id: 'k', messages: [] }, 'messages must be a non-empty array'],
    [{ id: 'k', messages: [{ role: 'system', parts: [] }] }, 'the last message must come from the user'],
  ])('rejects %j', (body, message) => {
    expect(() => parseChatBody(body)).toThrow(message);
  });
});
