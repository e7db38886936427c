import { ResponseTooLargeError } from './response-limit-errors.js';

export { ResponseTooLargeError } from './response-limit-errors.js';

/**
 * Reads `response`'s body, at most `maxBytes` of it. A `Content-Length` over the limit is refused
 * before anything is read; otherwise the body is read chunk by chunk and cancelled (the socket
 * released) as soon as the count passes the limit, so a peer that streams forever costs at most
 * `maxBytes` of memory. `what` names the answer in the error ("the Slack API's answer").
 * A time bound is the caller's: pass a `signal` to the `fetch` that produced `response`.
 */
export async function readBoundedBody(response: Response, maxBytes: number, what = 'the answer'): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new ResponseTooLargeError(what, maxBytes);
  }
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(what, maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/** `readBoundedBody` decoded as UTF-8. */
export async function readBoundedText(response: Response, maxBytes: number, what?: string): Promise<string> {
  return (await readBoundedBody(response, maxBytes, what)).toString('utf8');
}

/** `readBoundedBody` parsed as JSON; `undefined` for an empty or non-JSON body (a too-large one still throws). */
export async function readBoundedJson(response: Response, maxBytes: number, what?: string): Promise<unknown> {
  const text = await readBoundedText(response, maxBytes, what);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
