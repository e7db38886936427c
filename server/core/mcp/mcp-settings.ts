import { integerSetting } from '../integer-setting.js';

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
}

export const defaultMcpSettings: McpSettings = {
  callTimeoutMs: 30_000,
  connectTimeoutMs: 10_000,
  toolListTtlMs: 30_000,
  idleCloseMs: 15_000,
  maxConnections: 64,
};

/** Reads the `HARNESS_MCP_*` variables over the defaults; a bad value is a start error naming the variable. */
export function mcpSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): McpSettings {
  return {
    callTimeoutMs: integerSetting(environment, 'HARNESS_MCP_CALL_TIMEOUT_MS', defaultMcpSettings.callTimeoutMs, 100, 600_000),
    connectTimeoutMs: integerSetting(environment, 'HARNESS_MCP_CONNECT_TIMEOUT_MS', defaultMcpSettings.connectTimeoutMs, 100, 120_000),
    toolListTtlMs: integerSetting(environment, 'HARNESS_MCP_TOOL_LIST_TTL_MS', defaultMcpSettings.toolListTtlMs, 0, 3_600_000),
    idleCloseMs: integerSetting(environment, 'HARNESS_MCP_IDLE_CLOSE_MS', defaultMcpSettings.idleCloseMs, 100, 3_600_000),
    maxConnections: integerSetting(environment, 'HARNESS_MCP_MAX_CONNECTIONS', defaultMcpSettings.maxConnections, 1, 10_000),
  };
}
