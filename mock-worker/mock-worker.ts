import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendCompletion, type CompletionAttempt, type CompletionBody } from './completion-sender.js';
import { checkDispatchPayload, urlForLog, type DispatchPayload } from './dispatch-payload.js';
import { pointsAtSelf } from './self-address.js';

/**
 * The external worker for `external-dispatch` tools: `POST /dispatch` takes
 * `{resultId, toolCallId, toolName, input, completeUrl, completionHeaders}`, answers 202 at
 * once, and `delayMs` later POSTs the outcome to `completeUrl` (the agent service's absolute
 * address + `completePath`) with `completionHeaders`. It stands in for real outside work in
 * `npm start`, the tests and demos.
 */

export interface MockWorkerOptions {
  /** Default 4300; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** How long the "work" takes before the completion is sent. Default 200. */
  delayMs?: number;
  /** Share of dispatches completed as `failed`, 0..1. Default 0. */
  failRate?: number;
  /** Receives one line per dispatch, completion and refusal; never a header value. Default: silent. */
  logger?: (line: string) => void;
  /** Used for the completion POSTs. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Waits between tries of a completion that met a network error or a 5xx. Default 250, 1000, 4000 ms. */
  retryDelaysMs?: readonly number[];
}

/** A dispatch the worker accepted (its headers are left out: they carry the secret). */
export interface Dispatch extends Omit<DispatchPayload, 'completionHeaders'> {
  receivedAt: string;
}

export interface MockWorker {
  /** e.g. `http://127.0.0.1:4300`. */
  url: string;
  /** `url` + `/dispatch`: the tool's `workerUrl`. */
  dispatchUrl: string;
  received(): Dispatch[];
  /** Every completion POST tried, in order. */
  completions(): CompletionAttempt[];
  /** Resolves when every accepted dispatch has been completed (or given up on). */
  settled(): Promise<void>;
  /** Stops listening and drops completions not yet sent. */
  close(): Promise<void>;
}

export type { CompletionAttempt } from './completion-sender.js';

const maxBodyBytes = 1024 * 1024;

function sendJson(reply: ServerResponse, status: number, body: unknown): void {
  reply.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** The same error shape as the harness services: `{error: {code, message}}`, so a caller handles both alike. */
function sendError(reply: ServerResponse, status: number, code: string, message: string): void {
  sendJson(reply, status, { error: { code, message } });
}

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBodyBytes) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > maxBodyBytes ? undefined : Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function checkOptions(options: MockWorkerOptions): void {
  const { port = 4300, delayMs = 200, failRate = 0 } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`port must be a whole number from 0 to 65535, got ${port}`);
  if (!Number.isFinite(delayMs) || delayMs < 0) throw new RangeError(`delayMs must be 0 or more, got ${delayMs}`);
  if (!Number.isFinite(failRate) || failRate < 0 || failRate > 1) throw new RangeError(`failRate must be from 0 to 1, got ${failRate}`);
}

function urlHost(address: AddressInfo): string {
  if (address.address === '0.0.0.0') return '127.0.0.1';
  if (address.address === '::') return '[::1]';
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}

export async function startMockWorker(options: MockWorkerOptions = {}): Promise<MockWorker> {
  checkOptions(options);
  const { port = 4300, host = '127.0.0.1', delayMs = 200, failRate = 0, retryDelaysMs = [250, 1000, 4000] } = options;
  const log = (line: string): void => options.logger?.(`mock-worker: ${line}`);
  const doFetch = options.fetch ?? fetch;
  const received: Dispatch[] = [];
  const attempts: CompletionAttempt[] = [];
  const inFlight = new Set<Promise<unknown>>();
  /** Completions still waiting for their delay, with what releases settled() for each. */
  const timers = new Map<NodeJS.Timeout, () => void>();
  const stop = new AbortController();
  let listenPort = port;

  const outcome = (payload: DispatchPayload): CompletionBody =>
    failRate > 0 && Math.random() < failRate
      ? { status: 'failed', error: `mock worker failure (fail-rate ${failRate})` }
      : {
          status: 'completed',
          response: { resultId: payload.resultId, echo: payload.input, completedBy: 'mock-worker', completedAt: new Date().toISOString() },
        };

  const schedule = (payload: DispatchPayload): void => {
    let release = (): void => {};
    const done = new Promise<void>((resolve) => (release = resolve));
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
    const timer = setTimeout(() => {
      timers.delete(timer);
      sendCompletion({
        resultId: payload.resultId,
        completeUrl: payload.completeUrl,
        headers: payload.completionHeaders,
        body: outcome(payload),
        retryDelaysMs,
        fetch: doFetch,
        signal: stop.signal,
        record: (attempt) => attempts.push(attempt),
        log,
      })
        .catch((error: unknown) => log(`${payload.resultId}: completion crashed: ${error instanceof Error ? error.message : String(error)}`))
        .finally(release);
    }, delayMs);
    timers.set(timer, release);
  };

  const dispatch = async (request: IncomingMessage, reply: ServerResponse): Promise<void> => {
    const contentType = request.headers['content-type'] ?? '';
    if (!/^application\/(.+\+)?json\b/i.test(contentType)) {
      return sendError(reply, 415, 'unsupported_media_type', 'send the dispatch as Content-Type: application/json');
    }
    const text = await readBody(request);
    if (text === undefined) return sendError(reply, 413, 'payload_too_large', `the dispatch body is over ${maxBodyBytes} bytes`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return sendError(reply, 400, 'invalid_request', 'the body is not valid JSON');
    }
    const checked = checkDispatchPayload(body);
    if (!checked.ok) {
      log(`refused a dispatch: ${checked.message}`);
      return sendError(reply, 400, 'invalid_request', checked.message);
    }
    const payload = checked.payload;
    if (pointsAtSelf(payload.completeUrl, { host, port: listenPort })) {
      const message =
        `completeUrl ${urlForLog(payload.completeUrl)} points at this mock worker itself, so the completion would never reach the agent service ` +
        `and row ${payload.resultId} would stay processing: set the tool's completionBaseUrl to the agent service address (for example http://127.0.0.1:4200)`;
      log(`REFUSED ${payload.resultId}: ${message}`);
      return sendError(reply, 400, 'invalid_request', message);
    }
    const { completionHeaders: _secret, ...visible } = payload;
    received.push({ ...visible, receivedAt: new Date().toISOString() });
    log(`accepted ${payload.resultId} (${payload.toolName}); completing at ${urlForLog(payload.completeUrl)} in ${delayMs} ms`);
    sendJson(reply, 202, { accepted: true, resultId: payload.resultId });
    schedule(payload);
  };

  const server = createServer((request, reply) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/' && request.method === 'GET') return sendJson(reply, 200, { service: 'mock-worker', status: 'ok' });
    if (path === '/dispatch') {
      if (request.method !== 'POST') return sendError(reply, 405, 'method_not_allowed', 'use POST /dispatch');
      dispatch(request, reply).catch((error: unknown) => {
        log(`dispatch failed: ${error instanceof Error ? error.message : String(error)}`);
        if (!reply.headersSent) sendError(reply, 500, 'internal', 'the mock worker could not read the dispatch');
      });
      return;
    }
    if (path && /^\/async-tools\/[^/]+\/complete$/.test(path)) {
      // The recursion the spec warns about, arriving by a name pointsAtSelf did not know.
      log(`received POST ${path}, a completion meant for the agent service: completionBaseUrl points at the mock worker`);
      return sendError(reply, 404, 'not_found', 'this is the mock worker, not the agent service: point completionBaseUrl at the agent service');
    }
    sendError(reply, 404, 'not_found', `no route ${request.method ?? ''} ${path ?? ''}; the mock worker serves GET / and POST /dispatch`);
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      const where = `${host}:${port}`;
      if (error.code === 'EADDRINUSE') reject(new Error(`cannot listen on ${where}: the port is in use (another mock worker?); pick another with --port`, { cause: error }));
      else reject(new Error(`cannot listen on ${where}: ${error.message}`, { cause: error }));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  listenPort = address.port;
  const url = `http://${urlHost(address)}:${address.port}`;

  let closing: Promise<void> | undefined;
  return {
    url,
    dispatchUrl: `${url}/dispatch`,
    received: () => [...received],
    completions: () => [...attempts],
    settled: async () => {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    close: () => {
      closing ??= (async () => {
        if (timers.size > 0) log(`stopping: ${timers.size} completion(s) not sent yet are dropped`);
        stop.abort();
        for (const [timer, release] of timers) {
          clearTimeout(timer);
          release();
        }
        timers.clear();
        await Promise.all([...inFlight]);
        server.closeAllConnections();
        await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      })();
      return closing;
    },
  };
}
