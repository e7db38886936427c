import { request } from 'undici';
import { ApiError, CliError } from './cli-error.js';

/** How to reach one of the two services. */
export interface ApiClientOptions {
  /** Base URL, e.g. `http://127.0.0.1:4100`; a path prefix (`https://host/prod`) is kept. */
  baseUrl: string;
  /** Which service this is, for messages: `account` or `agent`. */
  serviceName: string;
  /** The account secret, sent as `Authorization: Bearer <secret>` when present. */
  secret?: string;
  /** The command that starts the services, named when they cannot be reached (default `harness serve`). */
  serveCommand?: string;
}

export interface SendOptions {
  /** Serialised as JSON. */
  body?: unknown;
  /** Defaults to `application/json` when there is a body. */
  contentType?: string;
}

export interface ApiClient {
  readonly baseUrl: string;
  /** Sends one request; resolves with the parsed JSON reply (`undefined` for 204). */
  send<T = unknown>(method: string, path: string, options?: SendOptions): Promise<T>;
}

const connectionErrorCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT']);

/** Joins a base URL and a path, keeping any path prefix of the base. */
export function joinUrl(baseUrl: string, path: string): string {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return new URL(path.replace(/^\/+/, ''), base).toString();
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  return {
    baseUrl: options.baseUrl,
    async send<T>(method: string, path: string, sendOptions: SendOptions = {}): Promise<T> {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (options.secret) headers.authorization = `Bearer ${options.secret}`;
      let body: string | undefined;
      if (sendOptions.body !== undefined) {
        body = JSON.stringify(sendOptions.body);
        headers['content-type'] = sendOptions.contentType ?? 'application/json';
      }
      let reply: Awaited<ReturnType<typeof request>>;
      try {
        reply = await request(joinUrl(options.baseUrl, path), { method: method as 'GET', headers, body });
      } catch (error) {
        throw connectionError(error, options);
      }
      const text = await reply.body.text();
      const parsed = parseJson(text);
      if (reply.statusCode >= 400) throw errorFromReply(reply.statusCode, parsed, text, method, path);
      if (reply.statusCode === 204 || text === '') return undefined as T;
      if (parsed === undefined) {
        throw new CliError(`the ${options.serviceName} service sent a reply that is not JSON (HTTP ${reply.statusCode} for ${method} ${path})`);
      }
      return parsed as T;
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The error for a reply with status >= 400: the service's `{error: {code, message}}` when it sent one. */
export function errorFromReply(status: number, parsed: unknown, text: string, method: string, path: string): CliError {
  const error = (parsed as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (error && typeof error.message === 'string') {
    return new ApiError(status, typeof error.code === 'string' ? error.code : 'error', error.message);
  }
  const excerpt = text.trim().slice(0, 120);
  return new ApiError(status, 'error', `${method} ${path} failed${excerpt ? `: ${excerpt}` : ''}`);
}

/** A failed connection, said in words that tell the user what to check. */
export function connectionError(error: unknown, options: Pick<ApiClientOptions, 'baseUrl' | 'serviceName' | 'serveCommand'>): CliError {
  const code = (error as { code?: unknown }).code;
  if (code === 'ECONNREFUSED') {
    return new CliError(`cannot reach the ${options.serviceName} service at ${options.baseUrl}: is \`${options.serveCommand ?? 'harness serve'}\` running?`, { cause: error });
  }
  if (typeof code === 'string' && connectionErrorCodes.has(code)) {
    return new CliError(`cannot reach the ${options.serviceName} service at ${options.baseUrl} (${code})`, { cause: error });
  }
  if (error instanceof TypeError || (typeof code === 'string' && code.startsWith('UND_ERR_INVALID'))) {
    return new CliError(`invalid ${options.serviceName} service URL ${options.baseUrl}: ${(error as Error).message}`, { cause: error });
  }
  return new CliError(`request to the ${options.serviceName} service at ${options.baseUrl} failed: ${(error as Error).message}`, { cause: error });
}
