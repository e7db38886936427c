import { apiErrorFromAnswer, HarnessConnectionError, HarnessResponseError, type HarnessService } from './harness-errors.js';

/** Where the two services are, and who is asking. */
export interface HarnessClientOptions {
  /** Both services at one address (a proxy, or `''` for the page's own origin in a browser); `accountUrl` and `agentUrl` win over it. */
  baseUrl?: string;
  /** The account service (`http://127.0.0.1:4100` with `harness serve`); a path prefix (`https://host/prod`) is kept. */
  accountUrl?: string;
  /** The agent service (`http://127.0.0.1:4200` with `harness serve`). */
  agentUrl?: string;
  /** The account secret, sent as `Authorization: Bearer <secret>`. */
  secret?: string;
  /** The fetch to use (default `globalThis.fetch`): a test double, or one with a proxy. */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

/** Options every call takes. */
export interface CallOptions {
  /** Sent as `Idempotency-Key`: a retry with the same key and body gets the first answer and runs nothing again. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** More headers for this call. */
  headers?: Record<string, string>;
}

export interface SendOptions extends CallOptions {
  /** Serialised as JSON. */
  json?: unknown;
  /** A raw body (a file upload). */
  body?: Uint8Array | Blob | string;
  /** Defaults to `application/json` with `json`, `application/octet-stream` with `body`. */
  contentType?: string;
  /** Defaults to `application/json`. */
  accept?: string;
  /** A bearer other than the client's secret for this call (the admin secret for a closed sign-up). */
  bearer?: string;
}

/** Joins a base URL and a path, keeping any path prefix of the base; an empty base leaves the path relative (a browser page's origin). */
export function joinUrl(baseUrl: string, path: string): string {
  if (baseUrl === '') return path;
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return new URL(path.replace(/^\/+/, ''), base).toString();
}

/** Sends requests to the two services and turns failures into the client's typed errors. */
export class HttpTransport {
  constructor(readonly options: HarnessClientOptions) {}

  baseUrl(service: HarnessService): string {
    const url = service === 'account' ? (this.options.accountUrl ?? this.options.baseUrl) : (this.options.agentUrl ?? this.options.baseUrl);
    if (url === undefined) throw new TypeError(`harness client: no ${service} service URL (give \`${service}Url\` or \`baseUrl\`)`);
    return url;
  }

  /** Sends one request; resolves with the answer when its status is below 400, else throws `HarnessApiError`. */
  async send(service: HarnessService, method: string, path: string, options: SendOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: options.accept ?? 'application/json', ...this.options.headers, ...options.headers };
    const bearer = options.bearer ?? this.options.secret;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    let body: Uint8Array | Blob | string | undefined = options.body;
    if (options.json !== undefined) body = JSON.stringify(options.json);
    if (body !== undefined) headers['content-type'] = options.contentType ?? (options.json !== undefined ? 'application/json' : 'application/octet-stream');
    const baseUrl = this.baseUrl(service);
    const doFetch = this.options.fetch ?? globalThis.fetch;
    let answer: Response;
    try {
      answer = await doFetch(joinUrl(baseUrl, path), { method, headers, ...(body === undefined ? {} : { body: body as NonNullable<RequestInit['body']> }), ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      // A caller's abort is theirs to see as it is.
      if (options.signal?.aborted) throw error;
      throw new HarnessConnectionError(service, baseUrl, error);
    }
    if (answer.status >= 400) {
      const text = await answer.text().catch(() => '');
      throw apiErrorFromAnswer({ status: answer.status, text, method, path: path.split('?')[0] ?? path, retryAfter: answer.headers.get('retry-after') });
    }
    return answer;
  }

  /** Sends one request and parses its JSON answer (`undefined` for a 204 or an empty body). */
  async json<T>(service: HarnessService, method: string, path: string, options: SendOptions = {}): Promise<T> {
    const answer = await this.send(service, method, path, options);
    const text = await answer.text();
    if (answer.status === 204 || text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new HarnessResponseError(`the ${service} service sent an answer that is not JSON (HTTP ${answer.status} for ${method} ${path})`);
    }
  }
}

/** A path segment, encoded. */
export const segment = (value: string): string => encodeURIComponent(value);
