import { createServer, type ServerResponse } from 'node:http';
import { listen } from '../../fixtures/listen.js';

export interface SilentWebhookSink {
  url: string;
  port: number;
  /** Requests received so far (none is ever answered). */
  received(): number;
  /** Requests still held open now. */
  held(): number;
  /** Drops every held request and stops listening. */
  close(): Promise<void>;
}

/** A completion-webhook receiver that reads each request and never answers it. */
export async function startSilentWebhookSink(): Promise<SilentWebhookSink> {
  const open = new Set<ServerResponse>();
  let received = 0;
  const http = createServer((request, response) => {
    received += 1;
    open.add(response);
    response.on('close', () => open.delete(response));
    request.resume();
  });
  // Node's default request timeout (5 min) would answer 408 for us; the sink stays silent.
  http.requestTimeout = 0;
  const origin = await listen(http);
  return {
    url: `${origin}/hooks/never`,
    port: Number(new URL(origin).port),
    received: () => received,
    held: () => open.size,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
