import type { UIMessageChunk } from 'ai';
import type { ChatRequest, ChatStreamSource } from '../chat/chat-stream-source.js';

/** A stream source that answers each request with the next scripted chunk list, and records the requests. */
export function scriptedChatSource(replies: UIMessageChunk[][]): ChatStreamSource & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    requests,
    open: async (request) => {
      requests.push(request);
      const chunks = replies.shift() ?? [];
      return (async function* () {
        yield* chunks;
      })();
    },
  };
}
