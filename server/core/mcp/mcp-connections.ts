import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { UntrustedJsonSchemas } from '../json-schema/untrusted-json-schemas.js';
import type { Logger } from '../logger.js';
import { packageVersion } from '../package-version.js';
import { AccountCallSlots } from './account-call-slots.js';
import { boundedResponseFetch } from './bounded-response-fetch.js';
import type { McpServerConfig } from './mcp-config-schema.js';
import { describeMcpFailure } from './mcp-failure-description.js';
import { mcpOutputValidator } from './mcp-output-validator.js';
import type { McpSettings } from './mcp-settings.js';
import { McpToolError } from './mcp-tool-error.js';

/** One tool as a server lists it. */
export interface McpToolDescription {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** Which server of which agent: connections and tool lists are never shared between agents. */
export interface McpServerKey {
  accountId: string;
  agentId: string;
  server: string;
}

interface PooledConnection {
  accountId: string;
  /** The url and headers it was opened with: a changed config opens a new connection. */
  fingerprint: string;
  client: Client;
  transport: StreamableHTTPClientTransport;
  ready: Promise<void>;
  tools?: { list: McpToolDescription[]; fetchedAt: number };
  inFlight: number;
  lastUsed: number;
  /** Out of the pool: closed once its last call ends. */
  retired?: boolean;
  /** Set when an answer passed a bound: what every call on it then fails with. */
  failure?: McpToolError;
  closing?: Promise<void>;
  idleTimer?: NodeJS.Timeout;
}

/** Requests of one account that may wait for a slot, per slot. */
const waitingPerSlot = 4;

/** How long closing a connection waits for the server to acknowledge the end of its session. */
const sessionEndWaitMs = 1000;

function fingerprintOf(server: McpServerConfig): string {
  return createHash('sha256').update(JSON.stringify([server.url, server.headers ?? {}])).digest('hex');
}

function slotOf(key: McpServerKey): string {
  return JSON.stringify([key.accountId, key.agentId, key.server]);
}

/**
 * Connections to accounts' MCP servers (Streamable HTTP, the official SDK's client): opened
 * lazily by the first turn that needs one, pooled per agent and server, closed when idle, and
 * bounded in number (the least recently used idle one makes room; when all are busy, the call
 * gets a connection of its own, closed after it). Tool lists are reused for a short while and
 * dropped when the server announces `notifications/tools/list_changed`. Every request goes
 * through `fetch`, the outbound policy's checked fetch.
 */
export class McpConnections {
  private readonly pool = new Map<string, PooledConnection>();
  /** Connections open per account (pooled, or serving one call), until closed. */
  private readonly openPerAccount = new Map<string, number>();
  private readonly accountCalls: AccountCallSlots;

  constructor(
    private readonly settings: McpSettings,
    private readonly fetch: typeof globalThis.fetch,
    private readonly logger: Logger,
    /** Compiles the output schemas servers list (linear-time patterns, bounded). */
    private readonly schemas: UntrustedJsonSchemas = new UntrustedJsonSchemas(),
    private readonly now: () => number = () => Date.now(),
  ) {
    this.accountCalls = new AccountCallSlots(settings.maxCallsPerAccount, settings.maxCallsPerAccount * waitingPerSlot);
  }

  /** The server's tools, from the short-lived cache or listed now (within the connect timeout). */
  async listTools(key: McpServerKey, server: McpServerConfig, signal?: AbortSignal): Promise<McpToolDescription[]> {
    return this.withConnection(key, server, this.settings.connectTimeoutMs, signal, async (connection) => {
      if (connection.tools && this.now() - connection.tools.fetchedAt < this.settings.toolListTtlMs) return connection.tools.list;
      const options = { signal: signal ?? AbortSignal.timeout(this.settings.connectTimeoutMs), timeout: this.settings.connectTimeoutMs };
      const list: McpToolDescription[] = [];
      let cursor: string | undefined;
      for (let page = 0; page === 0 || cursor; page += 1) {
        if (page >= this.settings.maxListPages) throw new McpToolError(`The MCP server "${key.server}" lists its tools in more than ${this.settings.maxListPages} pages, the most the service reads (HARNESS_MCP_MAX_LIST_PAGES).`, 'limit');
        // A signal of its own per page: the SDK leaves a listener on the signal of each request.
        const answer = await connection.client.listTools(cursor ? { cursor } : undefined, { ...options, signal: AbortSignal.any([options.signal]) });
        for (const tool of answer.tools) list.push({ name: tool.name, ...(tool.description ? { description: tool.description } : {}), inputSchema: tool.inputSchema as Record<string, unknown> });
        if (list.length > this.settings.maxToolsPerServer) throw new McpToolError(`The MCP server "${key.server}" lists more than ${this.settings.maxToolsPerServer} tools, the most the service takes from one server (HARNESS_MCP_MAX_TOOLS_PER_SERVER).`, 'limit');
        cursor = answer.nextCursor;
      }
      connection.tools = { list, fetchedAt: this.now() };
      return list;
    });
  }

  /** Calls `tool` with `input`; a server that is down, slow or refusing is an `McpToolError`. */
  async callTool(key: McpServerKey, server: McpServerConfig, tool: string, input: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    return this.withConnection(key, server, this.settings.callTimeoutMs, signal, async (connection) => {
      const timeout = AbortSignal.timeout(this.settings.callTimeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      try {
        return (await connection.client.callTool({ name: tool, arguments: input }, undefined, { signal: combined, timeout: this.settings.callTimeoutMs })) as CallToolResult;
      } catch (error) {
        if (timeout.aborted || (error instanceof McpError && error.code === ErrorCode.RequestTimeout)) {
          throw new McpToolError(`The MCP server "${key.server}" did not answer the call of ${tool} within ${this.settings.callTimeoutMs} ms.`, 'timeout');
        }
        throw error;
      }
    });
  }

  /** Closes every pooled connection and ends its session (service stop); a server that does not answer within a second is left. */
  async close(): Promise<void> {
    const all = [...this.pool.values()];
    this.pool.clear();
    await Promise.all(all.map((connection) => this.closeConnection(connection)));
  }

  /** Pooled connections now open (tests and the bench look). */
  get size(): number {
    return this.pool.size;
  }

  /** Connections open now for `accountId`'s agents (tests look). */
  openFor(accountId: string): number {
    return this.openPerAccount.get(accountId) ?? 0;
  }

  private async withConnection<T>(key: McpServerKey, server: McpServerConfig, waitMs: number, signal: AbortSignal | undefined, work: (connection: PooledConnection) => Promise<T>): Promise<T> {
    const release = await this.accountCalls.take(key.accountId, key.server, waitMs, signal);
    const slot = slotOf(key);
    let connection: PooledConnection;
    try {
      connection = this.acquire(slot, key, server);
    } catch (error) {
      release();
      throw error;
    }
    connection.inFlight += 1;
    try {
      await connection.ready;
      return await work(connection);
    } catch (error) {
      if (connection.failure) throw connection.failure;
      // A connection that failed below the protocol (refused, reset, a lost session) is not
      // reused: the next call reconnects. A timeout or an error answer leaves it usable.
      if (!(error instanceof McpError) && !(error instanceof McpToolError)) this.retire(slot, connection);
      throw describeMcpFailure(key.server, error);
    } finally {
      release();
      connection.inFlight -= 1;
      connection.lastUsed = this.now();
      if (connection.retired) {
        if (connection.inFlight === 0) void this.closeConnection(connection);
      } else this.scheduleIdleClose(slot, connection);
    }
  }

  private retire(slot: string, connection: PooledConnection): void {
    connection.retired = true;
    if (this.pool.get(slot) === connection) this.pool.delete(slot);
  }

  private acquire(slot: string, key: McpServerKey, server: McpServerConfig): PooledConnection {
    const fingerprint = fingerprintOf(server);
    const existing = this.pool.get(slot);
    if (existing && existing.fingerprint === fingerprint) {
      clearTimeout(existing.idleTimer);
      return existing;
    }
    if (existing) {
      this.retire(slot, existing);
      if (existing.inFlight === 0) void this.closeConnection(existing);
    }
    if (this.openFor(key.accountId) >= this.settings.maxConnectionsPerAccount && !this.evictIdle(key.accountId)) {
      throw new McpToolError(`The MCP server "${key.server}" was not called: this account already has ${this.settings.maxConnectionsPerAccount} MCP connections open and busy, the most it may (HARNESS_MCP_MAX_CONNECTIONS_PER_ACCOUNT).`, 'limit');
    }
    const connection = this.open(key, server, fingerprint);
    // When the pool is full of busy connections, this one serves one call and is closed after it.
    if (this.pool.size >= this.settings.maxConnections && !this.evictIdle()) connection.retired = true;
    else this.pool.set(slot, connection);
    return connection;
  }

  /** Closes the least recently used idle pooled connection (of `accountId` only, when given). */
  private evictIdle(accountId?: string): boolean {
    let oldest: [string, PooledConnection] | undefined;
    for (const entry of this.pool) {
      if (accountId !== undefined && entry[1].accountId !== accountId) continue;
      if (entry[1].inFlight === 0 && (!oldest || entry[1].lastUsed < oldest[1].lastUsed)) oldest = entry;
    }
    if (!oldest) return false;
    this.pool.delete(oldest[0]);
    void this.closeConnection(oldest[1]);
    return true;
  }

  private open(key: McpServerKey, server: McpServerConfig, fingerprint: string): PooledConnection {
    const client = new Client({ name: 'harness', version: packageVersion }, { jsonSchemaValidator: mcpOutputValidator(this.schemas) });
    const maxBytes = this.settings.maxResponseBytes;
    // An answer past the bound fails the request reading it, and the connection (an SSE reader only tells onerror).
    const tooLarge = () => {
      const failure = new McpToolError(`The MCP server "${key.server}" sent an answer larger than ${maxBytes} bytes, the most the service reads (HARNESS_MCP_MAX_RESPONSE_BYTES).`, 'limit');
      connection.failure ??= failure;
      this.retire(slotOf(key), connection);
      void this.closeConnection(connection);
      return failure;
    };
    const fetch = boundedResponseFetch(this.fetch, maxBytes, tooLarge);
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { fetch, requestInit: { headers: server.headers ?? {} } });
    const connection: PooledConnection = { accountId: key.accountId, fingerprint, client, transport, ready: Promise.resolve(), inFlight: 0, lastUsed: this.now() };
    this.openPerAccount.set(key.accountId, this.openFor(key.accountId) + 1);
    client.onerror = (error) => this.logger.debug({ event: 'mcp-connection', server: key.server, agentId: key.agentId, error: error.message }, 'MCP connection error');
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      connection.tools = undefined;
    });
    connection.ready = client.connect(transport, { timeout: this.settings.connectTimeoutMs, signal: AbortSignal.timeout(this.settings.connectTimeoutMs) });
    // Awaited by every user; this keeps a failure nobody waits for from being unhandled.
    connection.ready.catch(() => undefined);
    return connection;
  }

  private scheduleIdleClose(slot: string, connection: PooledConnection): void {
    clearTimeout(connection.idleTimer);
    if (connection.inFlight > 0) return;
    connection.idleTimer = setTimeout(() => {
      if (this.pool.get(slot) !== connection || connection.inFlight > 0) return;
      this.pool.delete(slot);
      void this.closeConnection(connection);
    }, this.settings.idleCloseMs);
    connection.idleTimer.unref();
  }

  /**
   * Ends the session on the server first (the `DELETE` of Streamable HTTP), so a stateful server
   * frees it and its GET stream now rather than when it notices the socket is gone; then closes
   * the client, which aborts whatever is still open (that `DELETE` too, when the server is slow).
   */
  private closeConnection(connection: PooledConnection): Promise<void> {
    connection.closing ??= this.endAndClose(connection);
    return connection.closing;
  }

  private async endAndClose(connection: PooledConnection): Promise<void> {
    const left = this.openFor(connection.accountId) - 1;
    if (left > 0) this.openPerAccount.set(connection.accountId, left);
    else this.openPerAccount.delete(connection.accountId);
    clearTimeout(connection.idleTimer);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, sessionEndWaitMs);
    });
    const ended = connection.ready.then(() => connection.transport.terminateSession()).catch(() => undefined);
    await Promise.race([ended, waited]);
    clearTimeout(timer);
    await connection.client.close().catch(() => undefined);
  }
}
