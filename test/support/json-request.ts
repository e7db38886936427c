/** What a service answered: the status, the body read as JSON (`{}` when empty), the headers. */
export interface JsonAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export interface JsonRequestOptions {
  /** GET without a body, POST with one, unless given. */
  method?: string;
  /** Sent as `Authorization: Bearer <secret>` when given. */
  secret?: string;
  /** Sent as JSON, with its content type; a request without one has neither. */
  body?: unknown;
}

/** Calls a service over HTTP as a client of its JSON API does, and reads the whole answer. */
export async function requestJson<T = Record<string, unknown>>(url: string, options: JsonRequestOptions = {}): Promise<JsonAnswer<T>> {
  const { secret, body } = options;
  const response = await fetch(url, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(secret ? { authorization: `Bearer ${secret}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as T, headers: response.headers };
}
