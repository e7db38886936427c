import type { ServerResponse } from 'node:http';
import { startRecordingServer, type RecordedRequest, type RecordingServer } from './stub-service.js';

/** What the stub answers: chunks as an SSE UI message stream, or a JSON body. */
export type ChatStubReply = { status?: number; chunks: unknown[]; done?: boolean } | { status: number; json: unknown };

/**
 * A stand-in for the agent service's chat and history routes: records each request and
 * answers from a handler, streaming chunks the way the service does (SSE `data:` lines, the
 * UI message stream header).
 */
export function startChatStub(handler: (request: RecordedRequest, index: number) => ChatStubReply): Promise<RecordingServer> {
  const stream = (reply: ServerResponse, answer: Extract<ChatStubReply, { chunks: unknown[] }>): void => {
    reply.writeHead(answer.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-vercel-ai-ui-message-stream': 'v1' });
    for (const chunk of answer.chunks) reply.write(`data: ${JSON.stringify(chunk)}\n\n`);
    if (answer.done !== false) reply.write('data: [DONE]\n\n');
    reply.end();
  };
  return startRecordingServer((recorded, reply, index) => {
    const answer = handler(recorded, index);
    if ('chunks' in answer) return stream(reply, answer);
    reply.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.json));
  });
}
