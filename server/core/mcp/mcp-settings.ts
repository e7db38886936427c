import { integerSettingGroup } from '../integer-setting.js';

/** How the service talks to accounts' MCP servers (the operator's `HARNESS_MCP_*` settings). */
export interface McpSettings {
  /** `HARNESS_MCP_CALL_TIMEOUT_MS` (default 30000): one tool call's bound; past it the model gets a tool error. */
  callTimeoutMs: number;
  /** `HARNESS_MCP_CONNECT_TIMEOUT_MS` (default 10000): connecting and listing a server's tools, when a turn starts. */
  connectTimeoutMs: number;
  /** `HARNESS_MCP_TOOL_LIST_TTL_MS` (default 30000): how long a server's tool list is reused (a list-changed notification drops it sooner). */
  toolListTtlMs: number;
  /**
   * `HARNESS_MCP_IDLE_CLOSE_MS` (default 15000): an unused pooled connection is closed (its
   * session ended) after this. Short, because a stateful server holds a session and a GET stream
   * open for each pooled connection; a turn that comes later reconnects in one round trip.
   */
  idleCloseMs: number;
  /** `HARNESS_MCP_MAX_CONNECTIONS` (default 64): pooled connections of this process, all agents together. */
  maxConnections: number;
  /** `HARNESS_MCP_MAX_RESPONSE_BYTES` (default 4 MiB): bytes read of one answer (a JSON body, or all events of one SSE stream); past it the request fails. */
  maxResponseBytes: number;
  /** `HARNESS_MCP_MAX_LIST_PAGES` (default 20): pages of `tools/list` read from one server; a server with more fails to list. */
  maxListPages: number;
  /** `HARNESS_MCP_MAX_TOOLS_PER_SERVER` (default 256): tools one server may list; one that lists more fails to list. */
  maxToolsPerServer: number;
  /** `HARNESS_MCP_MAX_SERVERS_PER_AGENT` (default 10): servers in one agent's `config.mcp` (more is a 400 when written; a turn uses the first ones). */
  maxServersPerAgent: number;
  /** `HARNESS_MCP_MAX_CONNECTIONS_PER_ACCOUNT` (default 16): connections one account's agents hold open at once, within `maxConnections`. */
  maxConnectionsPerAccount: number;
  /** `HARNESS_MCP_MAX_CALLS_PER_ACCOUNT` (default 16): MCP requests (calls and lists) of one account in flight at once; more wait briefly in the account's queue. */
  maxCallsPerAccount: number;
}

/** Each setting's variable, default and range, written once: the defaults and the reader come from it. */
const mcpSettingTable = integerSettingGroup({
  callTimeoutMs: ['HARNESS_MCP_CALL_TIMEOUT_MS', 30_000, 100, 600_000],
  connectTimeoutMs: ['HARNESS_MCP_CONNECT_TIMEOUT_MS', 10_000, 100, 120_000],
  toolListTtlMs: ['HARNESS_MCP_TOOL_LIST_TTL_MS', 30_000, 0, 3_600_000],
  idleCloseMs: ['HARNESS_MCP_IDLE_CLOSE_MS', 15_000, 100, 3_600_000],
  maxConnections: ['HARNESS_MCP_MAX_CONNECTIONS', 64, 1, 10_000],
  maxResponseBytes: ['HARNESS_MCP_MAX_RESPONSE_BYTES', 4 * 1024 * 1024, 1024, 1024 * 1024 * 1024],
  maxListPages: ['HARNESS_MCP_MAX_LIST_PAGES', 20, 1, 1000],
  maxToolsPerServer: ['HARNESS_MCP_MAX_TOOLS_PER_SERVER', 256, 1, 10_000],
  maxServersPerAgent: ['HARNESS_MCP_MAX_SERVERS_PER_AGENT', 10, 1, 1000],
  maxConnectionsPerAccount: ['HARNESS_MCP_MAX_CONNECTIONS_PER_ACCOUNT', 16, 1, 10_000],
  maxCallsPerAccount: ['HARNESS_MCP_MAX_CALLS_PER_ACCOUNT', 16, 1, 10_000],
});

export const defaultMcpSettings: McpSettings = mcpSettingTable.defaults;

/** Reads the variables over the defaults; a bad value is a start error naming the variable. */
export function mcpSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): McpSettings {
  return mcpSettingTable.settings(environment);
}
