import type { ServerResponse } from 'node:http';
import type { ConversationHistory } from '../chat/conversation-history.js';
import { startRecordingServer, type RecordedRequest, type RecordingServer } from './stub-service.js';

/** What the stub answers: chunks as an SSE UI message stream, or a JSON body. */
export type ChatStubReply = { status?: number; chunks: unknown[]; done?: boolean } | { status: number; json: unknown };

export interface ChatStubOptions {
  /** Stored conversations by key, for the history route; any other key is a 404. */
  conversations?: Record<string, ConversationHistory>;
}

/** A running chat stub: `requests` holds the chat requests, `historyRequests` the history reads. */
export interface ChatStub extends RecordingServer {
  historyRequests: RecordedRequest[];
}

const historyRoute = /^\/agents\/[^/]+\/conversations\/([^/?]+)$/;

/**
 * A stand-in for the agent service's chat and history routes: records each request and
 * answers chat requests from a handler (`index` counts chat requests only), streaming chunks
 * the way the service does (SSE `data:` lines, the UI message stream header), and history reads from `options.conversations`.
 */
export async function startChatStub(handler: (request: RecordedRequest, index: number) => ChatStubReply, options: ChatStubOptions = {}): Promise<ChatStub> {
  const isHistoryRead = (request: RecordedRequest): boolean => request.method === 'GET' && historyRoute.test(request.url);
  const stream = (reply: ServerResponse, answer: Extract<ChatStubReply, { chunks: unknown[] }>): void => {
    reply.writeHead(answer.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-vercel-ai-ui-message-stream': 'v1' });
    for (const chunk of answer.chunks) reply.write(`data: ${JSON.stringify(chunk)}\n\n`);
    if (answer.done !== false) reply.write('data: [DONE]\n\n');
    reply.end();
  };
  let chatRequests = 0;
  const server = await startRecordingServer((recorded, reply) => {
    if (isHistoryRead(recorded)) {
      const key = decodeURIComponent(historyRoute.exec(recorded.url)?.[1] ?? '');
      const history = options.conversations && Object.hasOwn(options.conversations, key) ? options.conversations[key] : undefined;
      const [status, body] = history ? [200, history] : [404, { error: { code: 'not_found', message: `No conversation ${key}.` } }];
      reply.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return;
    }
    const answer = handler(recorded, chatRequests++);
    if ('chunks' in answer) return stream(reply, answer);
    reply.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.json));
  });
  return {
    url: server.url,
    close: server.close,
    get requests() {
      return server.requests.filter((request) => !isHistoryRead(request));
    },
    get historyRequests() {
      return server.requests.filter(isHistoryRead);
    },
  };
}
