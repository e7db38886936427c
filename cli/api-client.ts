import { HarnessApiError, HarnessClient, HarnessConnectionError, HarnessResponseError, type HarnessService } from '../client/index.js';
import { ApiError, CliError } from './cli-error.js';

export { joinUrl } from '../client/index.js';

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

/**
 * One service as the CLI's commands call it: `harness/client` underneath (`client` for its
 * typed calls), with every failure turned into the CLI's own error and message.
 */
export interface ApiClient {
  readonly baseUrl: string;
  /** The typed client, both of its services at this base URL; its errors are the client's (`cliError` turns them into the CLI's). */
  readonly client: HarnessClient;
  /** Sends one request; resolves with the parsed JSON reply (`undefined` for 204). */
  send<T = unknown>(method: string, path: string, options?: SendOptions): Promise<T>;
  /** Runs a call of `client`, turning its failure into the CLI's error. */
  call<T>(operation: (client: HarnessClient) => Promise<T>): Promise<T>;
}

const serviceOf = (serviceName: string): HarnessService => (serviceName === 'agent' ? 'agent' : 'account');

export function createApiClient(options: ApiClientOptions): ApiClient {
  const client = new HarnessClient({ accountUrl: options.baseUrl, agentUrl: options.baseUrl, ...(options.secret ? { secret: options.secret } : {}) });
  const call = async <T>(operation: (harness: HarnessClient) => Promise<T>): Promise<T> => {
    try {
      return await operation(client);
    } catch (error) {
      throw cliError(error, options);
    }
  };
  return {
    baseUrl: options.baseUrl,
    client,
    call,
    send: <T>(method: string, path: string, sendOptions: SendOptions = {}) =>
      call((harness) =>
        harness.request<T>(serviceOf(options.serviceName), method, path, {
          ...(sendOptions.body === undefined ? {} : { json: sendOptions.body }),
          ...(sendOptions.contentType ? { contentType: sendOptions.contentType } : {}),
        }),
      ),
  };
}

/**
 * A failure of `harness/client` in the CLI's words: the service's error as an `ApiError`, a
 * connection that failed as a `CliError` saying what to check. Anything else passes through.
 */
export function cliError(error: unknown, options: Pick<ApiClientOptions, 'baseUrl' | 'serviceName' | 'serveCommand'>): unknown {
  if (error instanceof HarnessApiError) return new ApiError(error.status, error.code === 'http_error' ? 'error' : error.code, error.message);
  if (error instanceof HarnessConnectionError) return connectionError(error, options);
  if (error instanceof HarnessResponseError) return new CliError(error.message.replace(/^the (account|agent) service/, `the ${options.serviceName} service`), { cause: error });
  return error;
}

const connectionErrorCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);

/** A failed connection, said in words that tell the user what to check. */
function connectionError(error: HarnessConnectionError, options: Pick<ApiClientOptions, 'baseUrl' | 'serviceName' | 'serveCommand'>): CliError {
  const code = error.code;
  const cause = error.cause as Error | undefined;
  if (code === 'ECONNREFUSED') {
    return new CliError(`cannot reach the ${options.serviceName} service at ${options.baseUrl}: is \`${options.serveCommand ?? 'harness serve'}\` running?`, { cause: error });
  }
  if (code !== undefined && connectionErrorCodes.has(code)) {
    return new CliError(`cannot reach the ${options.serviceName} service at ${options.baseUrl} (${code})`, { cause: error });
  }
  if (code === 'ERR_INVALID_URL' || (code === undefined && cause instanceof TypeError && cause.message !== 'fetch failed')) {
    return new CliError(`invalid ${options.serviceName} service URL ${options.baseUrl}: ${cause?.message ?? error.message}`, { cause: error });
  }
  return new CliError(`request to the ${options.serviceName} service at ${options.baseUrl} failed: ${cause?.message ?? error.message}`, { cause: error });
}
