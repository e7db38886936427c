/** A failed call to an outside service: the message includes the HTTP status, so the model and the log can tell a bad key from an outage. */
export class OutsideServiceError extends Error {
  constructor(
    readonly toolName: string,
    readonly status: number,
    detail: string,
  ) {
    super(`${toolName}: the service answered HTTP ${status}${detail ? `: ${detail}` : ''}`);
    this.name = 'OutsideServiceError';
  }
}

/**
 * POST JSON to the search/extract service with the account's key as the bearer,
 * and return its JSON. Non-2xx answers throw `OutsideServiceError`, which the turn hands to
 * the model as a tool error.
 */
export async function callSearchService(options: {
  toolName: string;
  baseUrl: string;
  path: '/search' | '/extract';
  apiKey: string;
  body: Record<string, unknown>;
  fetch: typeof fetch;
  abortSignal?: AbortSignal;
}): Promise<unknown> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}${options.path}`;
  const response = await options.fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` },
    body: JSON.stringify(options.body),
    signal: options.abortSignal ?? AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (!response.ok) {
    // The body of an error answer may echo anything; keep a short, single-line excerpt.
    throw new OutsideServiceError(options.toolName, response.status, response.statusText || text.replace(/\s+/g, ' ').slice(0, 200));
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new OutsideServiceError(options.toolName, response.status, 'the answer was not JSON');
  }
}
