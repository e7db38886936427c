import { createServer, type Server } from 'node:http';

export interface Dispatch {
  resultId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  completeUrl: string;
  completionHeaders: { Authorization: string };
}

/**
 * A minimal external worker for tests that need to decide when and how rows complete
 * (concurrency, ordering, restarts). The real one is `mock-worker/`.
 */
export async function startRecordingWorker(onDispatch?: (dispatch: Dispatch) => Promise<void> | void): Promise<{
  dispatchUrl: string;
  dispatches: Dispatch[];
  complete(dispatch: Dispatch, body: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}> {
  const dispatches: Dispatch[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      const dispatch = JSON.parse(body) as Dispatch;
      dispatches.push(dispatch);
      void Promise.resolve(onDispatch?.(dispatch)).then(() => response.writeHead(202, { 'content-type': 'application/json' }).end('{"accepted":true}'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    dispatchUrl: `http://127.0.0.1:${address.port}/dispatch`,
    dispatches,
    complete: async (dispatch, body) => {
      const response = await fetch(dispatch.completeUrl, { method: 'POST', headers: { ...dispatch.completionHeaders, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
