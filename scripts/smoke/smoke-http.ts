import { EventSourceParserStream } from 'eventsource-parser/stream';

/** A JSON answer: the status and the parsed body (`{}` when empty, the text when not JSON). */
export interface JsonAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  secret?: string;
  accept?: string;
  timeoutMs: number;
}

function headers(options: RequestOptions): Record<string, string> {
  return {
    ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...(options.secret ? { authorization: `Bearer ${options.secret}` } : {}),
    ...(options.accept ? { accept: options.accept } : {}),
  };
}

/** Explains a failed fetch by its cause (`ECONNREFUSED`...), which `fetch failed` alone hides. */
export function describeFetchError(url: string, error: unknown): Error {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (error as Error).message;
  return new Error(`${url} did not answer (${reason})`);
}

export async function send(url: string, options: RequestOptions): Promise<Response> {
  try {
    return await fetch(url, {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers: headers(options),
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    throw describeFetchError(url, error);
  }
}

export async function requestJson(url: string, options: RequestOptions): Promise<JsonAnswer> {
  const response = await send(url, options);
  const text = await response.text();
  let body: Record<string, unknown> = {};
  if (text) {
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = { text };
    }
  }
  return { status: response.status, body };
}

/** Throws unless the answer has the expected status, quoting the service's error. */
export function expectStatus(answer: JsonAnswer, expected: number, what: string): void {
  if (answer.status === expected) return;
  throw new Error(`${what}: expected HTTP ${expected}, got ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
}

/** A UI message stream chunk (`{type, ...}`). */
export type UiChunk = { type: string } & Record<string, unknown>;

/** Reads an SSE answer to its end (`[DONE]`) as UI message chunks. */
export async function readUiChunks(response: Response): Promise<UiChunk[]> {
  if (!response.body) throw new Error('the SSE answer has no body');
  const chunks: UiChunk[] = [];
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const event of events) {
    if (event.data === '[DONE]') break;
    chunks.push(JSON.parse(event.data) as UiChunk);
  }
  return chunks;
}
