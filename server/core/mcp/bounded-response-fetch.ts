/** Statuses whose response may not carry a body (the `Response` constructor refuses one). */
const bodilessStatuses = new Set([101, 204, 205, 304]);

/**
 * Wraps `fetch` so that every response body is a byte-counting stream that errors with
 * `exceeded()` once more than `maxBytes` have come through (a `Content-Length` over it errors
 * on the first read), and cancels the rest: whatever reads it (the MCP SDK's `response.json()`,
 * its SSE parser, `response.text()` of an error answer) holds at most `maxBytes`. One count per
 * response covers a JSON answer, and for an SSE stream each event and all of them together.
 * `exceeded` is also told when the count passes, for readers (the SSE parser) that only report
 * a stream error to `onerror`.
 */
export function boundedResponseFetch(fetch: typeof globalThis.fetch, maxBytes: number, exceeded: () => Error): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body || bodilessStatuses.has(response.status)) return response;
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    let seen = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        if (declared > maxBytes) controller.error(exceeded());
      },
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) controller.error(exceeded());
        else controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
