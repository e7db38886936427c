import { createHarnessClient, type HarnessClient } from '../client/index.js';

/**
 * The page's `harness/client`: the agent service serves the page, so both of the client's
 * services are the page's own origin (an empty base URL keeps the paths relative; no CORS),
 * and the account secret is the bearer. The account-service reads it needs come through
 * `client.playground` (`/playground/api`).
 */
export function clientFor(secret: string): HarnessClient {
  return createHarnessClient({ baseUrl: '', secret });
}

export { HarnessApiError } from '../client/index.js';
export type { AgentSummary, CronJob, CronRun, HarnessDataParts, HarnessMessageMetadata, HarnessUIMessage } from '../client/index.js';
