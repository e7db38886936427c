import type { ParsedChatBody } from '../core/runs/chat-body.js';

/**
 * Whether a chat request gets the UI message stream (SSE) or the JSON end state.
 *
 * `Accept: text/event-stream` always streams. A body in the AI SDK chat transport's form
 * (`{id, messages}`) streams too unless the request asks for JSON: `DefaultChatTransport`
 * sends no `Accept` of its own (fetch then says `*∕*`), and a stock `useChat` application must
 * get the stream it reads. A native body without `Accept: text/event-stream` gets JSON.
 */
export function wantsEventStream(accept: string | undefined, form: ParsedChatBody['form']): boolean {
  const header = (accept ?? '').toLowerCase();
  if (header.includes('text/event-stream')) return true;
  return form === 'transport' && !header.includes('application/json');
}
