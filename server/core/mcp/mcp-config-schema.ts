import { z } from 'zod';
import { parseOrThrow, requireObject } from '../config-parsing/config-section-parsing.js';
import { toolNames, toolsConfiguredElsewhere } from '../config-parsing/tool-catalog.js';
import { InvalidRequestError } from '../errors.js';
import { httpUrlSchema } from '../outbound/http-url.js';

/**
 * A model-facing tool name: what OpenAI-compatible providers accept (1-64 of A-Z, a-z, 0-9,
 * `_` and `-`). Every MCP tool reaches the model as `<server>__<tool>` and must fit it.
 */
export const modelToolNamePattern = /^[A-Za-z0-9_-]{1,64}$/;

/** Separates the server from its tool in the model-facing name. */
export const mcpToolSeparator = '__';

/** A server name: a letter, then letters, digits, `-` or single `_`, at most 32; never `__`, which separates it from its tools. */
const serverNamePattern = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;

const toolNameList = z.array(z.string({ error: 'must be a list of tool names' }).min(1, 'must not hold an empty name').max(128, 'must hold names of at most 128 characters'), { error: 'must be a list of tool names' }).max(500, 'must hold at most 500 names');

const serverSchema = z.strictObject({
  url: httpUrlSchema,
  headers: z
    .record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'must have header names of token characters'), z.string({ error: 'must hold string values' }).max(8192, 'must hold values of at most 8192 characters'), { error: 'must be an object of header name to value' })
    .optional(),
  tools: z.strictObject({ allow: toolNameList.optional(), deny: toolNameList.optional() }, { error: 'must be an object {allow?, deny?}' }).optional(),
  needsApproval: z.union([z.boolean(), z.record(z.string(), z.boolean({ error: 'must map tool names to booleans' }))], { error: 'must be a boolean or an object of tool name to boolean' }).optional(),
});

/** One MCP server an agent uses: Streamable HTTP at `url`, with `headers` (secrets) on every request. */
export type McpServerConfig = z.infer<typeof serverSchema>;

export type McpConfig = Record<string, McpServerConfig>;

/** Names the model already knows from elsewhere; a server named like one would read as that tool. */
const reservedNames = new Set<string>([...toolNames, ...Object.keys(toolsConfiguredElsewhere)]);

/** The model-facing name of `tool` on `server`. */
export function mcpToolName(server: string, tool: string): string {
  return `${server}${mcpToolSeparator}${tool}`;
}

/**
 * Validate `config.mcp`: each server's shape, its name (it prefixes its tools, so it may not
 * contain `__` nor be a tool's name), and that every tool named in `tools.allow`,
 * `tools.deny` or `needsApproval` gives a valid model-facing name. Run when a config is
 * written and again when tools are built. The first problem is a 400 naming its path.
 */
export function validateMcpConfig(value: unknown): McpConfig {
  const servers = requireObject(value, 'config.mcp', 'server name to {url, headers?, tools?, needsApproval?}');
  const validated: McpConfig = {};
  for (const [name, settings] of Object.entries(servers)) {
    const path = `config.mcp.${name}`;
    if (!serverNamePattern.test(name) || name.includes(mcpToolSeparator) || name.endsWith('_')) {
      throw new InvalidRequestError(`${path}: a server name must be 1-32 characters of A-Z, a-z, 0-9, "-" and "_", start with a letter, and contain no "__" nor end with "_" (it prefixes the server's tools: <server>__<tool>)`);
    }
    if (reservedNames.has(name)) throw new InvalidRequestError(`${path}: "${name}" clashes with the built-in tool of that name; choose another server name`);
    const server = parseOrThrow(serverSchema, requireObject(settings, path, 'url, headers?, tools?, needsApproval?'), path);
    const named = [...(server.tools?.allow ?? []), ...(server.tools?.deny ?? []), ...(typeof server.needsApproval === 'object' ? Object.keys(server.needsApproval) : [])];
    for (const tool of named) {
      const modelName = mcpToolName(name, tool);
      if (!modelToolNamePattern.test(modelName)) {
        throw new InvalidRequestError(`${path} names the tool "${tool}", whose model-facing name ${modelName} is not 1-64 characters of A-Z, a-z, 0-9, "_" and "-"`);
      }
    }
    validated[name] = server;
  }
  return validated;
}

/**
 * The write-time bound on fan-out: an agent config naming more than `maxServers` MCP servers is
 * a 400 naming `config.mcp` (each server is a connection and a `tools/list` at every turn).
 */
export function checkMcpServerCount(mcp: McpConfig | undefined, maxServers: number): void {
  const count = mcp === undefined ? 0 : Object.keys(mcp).length;
  if (count > maxServers) throw new InvalidRequestError(`config.mcp names ${count} MCP servers; an agent may use at most ${maxServers} (HARNESS_MCP_MAX_SERVERS_PER_AGENT)`);
}

/** Whether `tool` of a server is offered to the model: in `allow` when there is one, and never in `deny`. */
export function isToolOffered(server: McpServerConfig, tool: string): boolean {
  if (server.tools?.allow && !server.tools.allow.includes(tool)) return false;
  return !(server.tools?.deny ?? []).includes(tool);
}

/** Whether a call of `tool` waits for a person's approval. */
export function toolNeedsApproval(server: McpServerConfig, tool: string): boolean {
  if (typeof server.needsApproval === 'boolean') return server.needsApproval;
  return server.needsApproval?.[tool] === true;
}
