/**
 * The API contract: the JSON Schemas of the routes' bodies and views, and the TypeScript types
 * derived from them. Free of Node, Fastify and the core, so the server, the client
 * (`harness/client`), the CLI and the playground all import it.
 */
export * from './account-views.js';
export * from './common-views.js';
export type * from './contract-types.js';
export * from './cron-job-views.js';
export * from './playground-views.js';
export * from './run-control-views.js';
export * from './turn-views.js';
export * from './ui-message-views.js';
export * from './usage-views.js';
export * from './workspace-views.js';
