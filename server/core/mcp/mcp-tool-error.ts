/**
 * A call of an MCP tool that did not give a result: the server is down, too slow, refused the
 * call, or the tool reported a failure. The message is for the model (it gets it as the tool's
 * error) and names the server, never its headers.
 */
export class McpToolError extends Error {
  constructor(
    message: string,
    /**
     * `unavailable` (connecting failed), `timeout`, `protocol` (the server answered with an
     * error), `tool` (the tool reported `isError`) or `limit` (a bound of the service was hit:
     * an answer too large, too many tools, too many requests of the account at once).
     */
    readonly kind: 'unavailable' | 'timeout' | 'protocol' | 'tool' | 'limit',
  ) {
    super(message);
    this.name = 'McpToolError';
  }
}
