import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { OutboundDestinationRefusedError } from '../outbound/outbound-policy.js';
import { McpToolError } from './mcp-tool-error.js';

const reasonsByCode = new Map<number, string>([
  [ErrorCode.ConnectionClosed, 'the connection closed'],
  [ErrorCode.ParseError, 'it could not parse the request'],
  [ErrorCode.InvalidRequest, 'invalid request'],
  [ErrorCode.MethodNotFound, 'method not found'],
  [ErrorCode.InvalidParams, 'invalid parameters'],
  [ErrorCode.InternalError, 'internal error'],
]);

/**
 * The reason an `McpError` stands for. Its message is mostly the server's own text (a peer's
 * body), so only the code is read, plus the SDK's own messages about output schemas.
 */
function reasonOf(error: McpError): string {
  if (/^MCP error -?\d+: (Structured content does not match|Failed to validate structured content)/.test(error.message)) return "its structured content does not match the tool's output schema";
  if (/^MCP error -?\d+: Tool \S+ has an output schema but did not return structured content/.test(error.message)) return 'the tool has an output schema but gave no structured content';
  return `${reasonsByCode.get(error.code) ?? 'an error'}, MCP error ${error.code}`;
}

/** The first error in `error`'s cause chain that is a `kind`. */
function inCauses<T>(error: unknown, kind: abstract new (...args: never[]) => T): T | undefined {
  for (let current = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth += 1) {
    if (current instanceof kind) return current;
  }
  return undefined;
}

/** A system error code (`ECONNREFUSED`, `UND_ERR_SOCKET`...) from an error or its cause; never a message. */
function systemCodeOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) return code;
  }
  return undefined;
}

/**
 * The error the model (and the list route's 502) gets when a call to an account's MCP server
 * fails: the server's name, the HTTP status when there is one, and a short reason of our own.
 * Never the upstream's body, which the SDK puts in its messages ("Error POSTing to endpoint:
 * <body>", a JSON parse error quoting it, a JSON-RPC error's text).
 */
export function describeMcpFailure(server: string, error: unknown): McpToolError {
  if (error instanceof McpToolError) return error;
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return new McpToolError(`The MCP server "${server}" did not answer within the time allowed.`, 'timeout');
    return new McpToolError(`The MCP server "${server}" refused the request (${reasonOf(error)}).`, 'protocol');
  }
  if (error instanceof StreamableHTTPError) {
    const detail = error.code !== undefined && error.code > 0 ? `HTTP ${error.code}` : 'an answer that is not JSON nor an event stream';
    return new McpToolError(`The MCP server "${server}" is unavailable (${detail}).`, 'unavailable');
  }
  if (error instanceof UnauthorizedError) return new McpToolError(`The MCP server "${server}" is unavailable (HTTP 401: check the headers in config.mcp.${server}).`, 'unavailable');
  // Our own message: the host and the address the outbound policy refused.
  const refused = inCauses(error, OutboundDestinationRefusedError);
  if (refused) return new McpToolError(`The MCP server "${server}" is unavailable (${refused.message}).`, 'unavailable');
  if (error instanceof SyntaxError) return new McpToolError(`The MCP server "${server}" is unavailable (its answer is not valid JSON).`, 'unavailable');
  const code = systemCodeOf(error);
  return new McpToolError(`The MCP server "${server}" is unavailable (${code ?? 'no usable answer'}).`, 'unavailable');
}
