/**
 * `harness/client`: a typed, fetch-based client of the harness services, for Node and
 * browsers (no Node-only imports). See docs/client.md.
 */
export { createHarnessClient, HarnessClient } from './harness-client.js';
export { type CallOptions, type HarnessClientOptions, joinUrl, type SendOptions } from './http-transport.js';
export { ConversationBusyError, HarnessApiError, HarnessConnectionError, type HarnessErrorBody, HarnessResponseError, type HarnessService } from './harness-errors.js';
export { settledStatuses, type WaitOptions } from './run-groups.js';
export { type HarnessChatStream, parseUiMessageStream, StreamEndedError } from './ui-message-stream.js';
export type * from '../contract/contract-types.js';
