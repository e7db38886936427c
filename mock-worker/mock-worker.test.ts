import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startMockWorker, type MockWorker, type MockWorkerOptions } from './mock-worker.js';

interface Received {
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** A stand-in for the agent service's completion endpoint: records each POST, answers `statuses` in turn (then the last one). */
async function startReceiver(statuses: number[] = [202]) {
  const requests: Received[] = [];
  const server = createServer((request, reply) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      requests.push({ url: request.url ?? '', headers: request.headers, body: JSON.parse(text) });
      const status = statuses[Math.min(requests.length - 1, statuses.length - 1)] ?? 202;
      const body = status === 202 ? { resultId: 'r', status: 'completed', continuation: 'accepted' } : { error: { code: status === 409 ? 'conflict' : 'internal', message: 'no' } };
      reply.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

async function setup(options: MockWorkerOptions = {}, statuses?: number[]) {
  const receiver = await startReceiver(statuses);
  closers.push(receiver.close);
  const lines: string[] = [];
  const worker = await startMockWorker({ port: 0, delayMs: 0, retryDelaysMs: [0, 0, 0], logger: (line) => lines.push(line), ...options });
  closers.push(worker.close);
  return { receiver, worker, lines };
}

const secret = 'sk_live_do_not_log_me_123456';

function dispatchBody(completeUrl: string, overrides: Record<string, unknown> = {}) {
  return {
    resultId: 'res_1',
    toolCallId: 'call_1',
    toolName: 'test_external_async',
    input: { prompt: 'hi' },
    completeUrl,
    completionHeaders: { Authorization: `Bearer ${secret}` },
    ...overrides,
  };
}

async function dispatch(worker: MockWorker, body: unknown) {
  const reply = await fetch(worker.dispatchUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: reply.status, body: (await reply.json()) as Record<string, unknown> };
}

describe('startMockWorker', () => {
  it('answers GET / with its name', async () => {
    const { worker } = await setup();
    expect(worker.dispatchUrl).toBe(`${worker.url}/dispatch`);
    const reply = await fetch(`${worker.url}/`);
    expect(await reply.json()).toEqual({ service: 'mock-worker', status: 'ok' });
  });

  it('accepts a dispatch at once and POSTs the completed body to completeUrl with the given Authorization', async () => {
    const { worker, receiver, lines } = await setup();
    const completeUrl = `${receiver.url}/async-tools/res_1/complete`;
    expect(await dispatch(worker, dispatchBody(completeUrl))).toEqual({ status: 202, body: { accepted: true, resultId: 'res_1' } });
    await worker.settled();
    expect(receiver.requests).toHaveLength(1);
    const [completion] = receiver.requests;
    expect(completion?.url).toBe('/async-tools/res_1/complete');
    expect(completion?.headers.authorization).toBe(`Bearer ${secret}`);
    expect(completion?.headers['content-type']).toBe('application/json');
    expect(completion?.body).toEqual({
      status: 'completed',
      response: { resultId: 'res_1', echo: { prompt: 'hi' }, completedBy: 'mock-worker', completedAt: expect.any(String) },
    });
    expect(worker.received()).toEqual([expect.objectContaining({ resultId: 'res_1', toolName: 'test_external_async', completeUrl })]);
    expect(worker.completions()).toEqual([expect.objectContaining({ resultId: 'res_1', attempt: 1, sent: 'completed', httpStatus: 202, outcome: 'delivered' })]);
    expect(lines.join('\n')).toContain('res_1: completed at');
    expect(lines.join('\n')).not.toContain(secret);
  });

  it('sends failed bodies with failRate 1', async () => {
    const { worker, receiver } = await setup({ failRate: 1 });
    await dispatch(worker, dispatchBody(`${receiver.url}/async-tools/res_1/complete`));
    await dispatch(worker, dispatchBody(`${receiver.url}/async-tools/res_2/complete`, { resultId: 'res_2' }));
    await worker.settled();
    expect(receiver.requests.map((request) => request.body)).toEqual([
      { status: 'failed', error: 'mock worker failure (fail-rate 1)' },
      { status: 'failed', error: 'mock worker failure (fail-rate 1)' },
    ]);
  });

  it.each(['127.0.0.1', 'localhost', '[::1]', '[::ffff:127.0.0.1]'])('refuses a completeUrl pointing at itself through %s', async (hostName) => {
    const { worker, receiver, lines } = await setup();
    const port = new URL(worker.url).port;
    const reply = await dispatch(worker, dispatchBody(`http://${hostName}:${port}/async-tools/res_1/complete`));
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: { code: 'invalid_request', message: expect.stringContaining('points at this mock worker itself') } });
    expect(lines.some((line) => line.includes('REFUSED res_1'))).toBe(true);
    await worker.settled();
    expect(worker.received()).toEqual([]);
    expect(receiver.requests).toEqual([]);
  });

  it('accepts the same host on another port (the agent service)', async () => {
    const { worker, receiver } = await setup();
    expect((await dispatch(worker, dispatchBody(`${receiver.url.replace('127.0.0.1', 'localhost')}/async-tools/res_1/complete`))).status).toBe(202);
  });

  it.each([
    [{ resultId: undefined }, 'resultId is required'],
    [{ toolName: '' }, 'toolName is required'],
    [{ completeUrl: '/async-tools/res_1/complete' }, 'completeUrl must be an absolute http(s) URL'],
    [{ completeUrl: 'ftp://host/x' }, 'completeUrl must be an absolute http(s) URL'],
    [{ completionHeaders: {} }, 'completionHeaders.Authorization is required'],
    [{ completionHeaders: undefined }, 'completionHeaders is required'],
  ])('answers 400 naming the field for %o', async (overrides, message) => {
    const { worker, receiver } = await setup();
    const reply = await dispatch(worker, dispatchBody(`${receiver.url}/c`, overrides));
    expect(reply.status).toBe(400);
    expect((reply.body.error as { message: string }).message).toContain(message);
  });

  it('answers 400 for a body that is not JSON and 415 for another content type', async () => {
    const { worker } = await setup();
    const notJson = await fetch(worker.dispatchUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{oops' });
    expect(notJson.status).toBe(400);
    const text = await fetch(worker.dispatchUrl, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(text.status).toBe(415);
  });

  it('retries a 5xx and stops at the first 2xx', async () => {
    const { worker, receiver } = await setup({}, [503, 500, 202]);
    await dispatch(worker, dispatchBody(`${receiver.url}/async-tools/res_1/complete`));
    await worker.settled();
    expect(receiver.requests).toHaveLength(3);
    expect(worker.completions().map((attempt) => [attempt.attempt, attempt.httpStatus, attempt.outcome])).toEqual([
      [1, 503, 'retrying'],
      [2, 500, 'retrying'],
      [3, 202, 'delivered'],
    ]);
  });

  it('gives up after the retries', async () => {
    const { worker, receiver } = await setup({ retryDelaysMs: [0] }, [500]);
    await dispatch(worker, dispatchBody(`${receiver.url}/async-tools/res_1/complete`));
    await worker.settled();
    expect(receiver.requests).toHaveLength(2);
    expect(worker.completions().at(-1)?.outcome).toBe('gave-up');
  });

  it('never retries a 409 (already settled) or another 4xx', async () => {
    const { worker, receiver, lines } = await setup({}, [409]);
    await dispatch(worker, dispatchBody(`${receiver.url}/async-tools/res_1/complete`));
    await worker.settled();
    expect(receiver.requests).toHaveLength(1);
    expect(worker.completions()).toEqual([expect.objectContaining({ httpStatus: 409, outcome: 'already-settled' })]);
    expect(lines.some((line) => line.includes('already settled'))).toBe(true);

    const other = await setup({}, [404]);
    await dispatch(other.worker, dispatchBody(`${other.receiver.url}/async-tools/res_1/complete`));
    await other.worker.settled();
    expect(other.receiver.requests).toHaveLength(1);
    expect(other.worker.completions()[0]?.outcome).toBe('rejected');
  });

  it('retries a network error', async () => {
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => {
      calls += 1;
      if (calls === 1) throw new TypeError('fetch failed', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) });
      return fetch(input, init);
    };
    const { worker, receiver, lines } = await setup({ fetch: flaky });
    await dispatch(worker, dispatchBody(`${receiver.url}/async-tools/res_1/complete`));
    await worker.settled();
    expect(worker.completions().map((attempt) => attempt.outcome)).toEqual(['retrying', 'delivered']);
    expect(worker.completions()[0]?.error).toBe('ECONNREFUSED');
    expect(receiver.requests).toHaveLength(1);
    expect(lines.join('\n')).not.toContain(secret);
  });

  it('answers a completion call sent to it by mistake with 404, so the sender does not retry', async () => {
    const { worker, lines } = await setup();
    const reply = await fetch(`${worker.url}/async-tools/res_1/complete`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(reply.status).toBe(404);
    expect(lines.join('\n')).toContain('completionBaseUrl points at the mock worker');
  });

  it('drops completions not sent yet when closed', async () => {
    const { worker, receiver } = await setup({ delayMs: 60_000 });
    await dispatch(worker, dispatchBody(`${receiver.url}/async-tools/res_1/complete`));
    await worker.close();
    await worker.settled();
    expect(receiver.requests).toEqual([]);
  });

  it('refuses bad options', async () => {
    await expect(startMockWorker({ port: 0, failRate: 2 })).rejects.toThrow('failRate must be from 0 to 1');
    await expect(startMockWorker({ port: 0, delayMs: -1 })).rejects.toThrow('delayMs must be 0 or more');
  });

  it('says when the port is taken', async () => {
    const { worker } = await setup();
    await expect(startMockWorker({ port: Number(new URL(worker.url).port) })).rejects.toThrow('the port is in use');
  });
});
