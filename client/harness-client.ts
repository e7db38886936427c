import type { ServiceRoot } from '../contract/contract-types.js';
import { accountCalls, agentCalls, cronJobCalls, workspaceCalls } from './account-groups.js';
import type { HarnessService } from './harness-errors.js';
import { type CallOptions, type HarnessClientOptions, HttpTransport, type SendOptions } from './http-transport.js';
import { asyncCalls, chatCalls, playgroundCalls, runControlCalls } from './run-groups.js';

/**
 * A typed client of both harness services, on `fetch` alone (Node 18+, browsers, Deno, Bun).
 * Each group is one area of the API; every call takes `CallOptions` last (`idempotencyKey`,
 * `signal`, `headers`). Failures are typed: `HarnessApiError` (the service's error answer;
 * `ConversationBusyError` for 409 `conversation_busy`), `HarnessConnectionError` (no answer),
 * `HarnessResponseError` (an answer the client cannot read).
 */
export class HarnessClient {
  readonly accounts: ReturnType<typeof accountCalls>;
  readonly agents: ReturnType<typeof agentCalls>;
  readonly cronJobs: ReturnType<typeof cronJobCalls>;
  readonly workspace: ReturnType<typeof workspaceCalls>;
  readonly chat: ReturnType<typeof chatCalls>;
  readonly async: ReturnType<typeof asyncCalls>;
  /** External async tool calls: `asyncTools.complete(resultId, outcome)`. */
  readonly asyncTools: { complete: ReturnType<typeof runControlCalls>['complete'] };
  readonly playground: ReturnType<typeof playgroundCalls>;
  /** Cancels a run by its event (`POST /status/{eventId}/cancel`). */
  readonly cancel: ReturnType<typeof runControlCalls>['cancel'];
  /** Cancels whatever runs on a conversation. */
  readonly cancelConversation: ReturnType<typeof runControlCalls>['cancelConversation'];
  private readonly transport: HttpTransport;

  constructor(readonly options: HarnessClientOptions) {
    this.transport = new HttpTransport(options);
    this.accounts = accountCalls(this.transport);
    this.agents = agentCalls(this.transport);
    this.cronJobs = cronJobCalls(this.transport);
    this.workspace = workspaceCalls(this.transport);
    this.chat = chatCalls(this.transport);
    this.async = asyncCalls(this.transport);
    this.playground = playgroundCalls(this.transport);
    const runControl = runControlCalls(this.transport);
    this.asyncTools = { complete: runControl.complete };
    this.cancel = runControl.cancel;
    this.cancelConversation = runControl.cancelConversation;
  }

  /** The same services as another account (after `accounts.signup`, say). */
  withSecret(secret: string): HarnessClient {
    return new HarnessClient({ ...this.options, secret });
  }

  /** `GET /accounts/me/usage`, as `accounts.usage`. */
  usage(...parameters: Parameters<ReturnType<typeof accountCalls>['usage']>) {
    return this.accounts.usage(...parameters);
  }

  /** `GET /` of a service: up, its version and stage. */
  health(service: HarnessService, options: CallOptions = {}): Promise<ServiceRoot> {
    return this.transport.json<ServiceRoot>(service, 'GET', '/', options);
  }

  /** Any route, for what the groups do not cover: the JSON answer (`undefined` for a 204). */
  request<T = unknown>(service: HarnessService, method: string, path: string, options: SendOptions = {}): Promise<T> {
    return this.transport.json<T>(service, method, path, options);
  }

  /** Any route, the raw `Response` (status below 400; errors thrown as for every call). */
  fetchRaw(service: HarnessService, method: string, path: string, options: SendOptions = {}): Promise<Response> {
    return this.transport.send(service, method, path, options);
  }

  /** The base URL of a service, as given. */
  baseUrl(service: HarnessService): string {
    return this.transport.baseUrl(service);
  }
}

/** `new HarnessClient(options)`. */
export function createHarnessClient(options: HarnessClientOptions): HarnessClient {
  return new HarnessClient(options);
}
