import type { Logger } from '../logger.js';
import type { ProviderTools } from '../model/provider-tools.js';
import type { ProviderName } from '../model/providers/provider-registry.js';
import type { TransportKind } from '../transports/transports.js';
import type { UnavailableTools } from './unavailable-tools.js';

/** Service-wide settings the tool factories may read: the operator's, never the account's. */
export interface ToolEnvironment {
  /** `ALPHA_API_KEY`: the fallback key of the search tool family, and of nothing else. */
  alphaApiKey?: string;
  /** `ALPHA_BASE_URL`: the search/extract service, Tavily's API by default. */
  alphaBaseUrl: string;
  /** `MOCK_WORKER_URL`: default dispatch target of `test_external_async`. */
  mockWorkerUrl?: string;
}

/** What every tool factory receives besides its own config. */
export interface ToolContext {
  accountId: string;
  agentId: string;
  conversationKey: string;
  turnId: string;
  transport: TransportKind;
  /** The end user the conversation belongs to (the request's, or the one memory derives from the key). */
  user?: string;
  environment: ToolEnvironment;
  /** The provider the agent's model is on, for the error naming a tool it lacks. */
  providerName: ProviderName;
  /** That provider's own tools (web search, code execution, URL context) where it has them. */
  providerTools: ProviderTools;
  logger: Logger;
  /** For destinations the operator chose (`ALPHA_BASE_URL`, `MOCK_WORKER_URL`). */
  fetch: typeof fetch;
  /** For destinations the account chose (a tool's `workerUrl`): under the outbound policy. Default: `fetch`. */
  outboundFetch?: typeof fetch;
  /** This turn's record of tools a source could not offer and why (an MCP server that is down); a call of one answers that reason. */
  unavailableTools?: UnavailableTools;
}

export const defaultAlphaBaseUrl = 'https://api.tavily.com';

export function toolEnvironmentFrom(environment: NodeJS.ProcessEnv = process.env): ToolEnvironment {
  return {
    alphaApiKey: environment.ALPHA_API_KEY || undefined,
    alphaBaseUrl: environment.ALPHA_BASE_URL || defaultAlphaBaseUrl,
    mockWorkerUrl: environment.MOCK_WORKER_URL || undefined,
  };
}
