import { commonToolOptionNames } from '../config-parsing/tool-catalog.js';
import { InvalidRequestError } from '../errors.js';
import type { ToolContext } from './tool-context.js';

const common = new Set<string>(commonToolOptionNames);

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * A tool's own options for its outside service: never the common ones, and in
 * the service's spelling (Tavily's snake_case: `maxResults` is sent as `max_results`).
 */
export function serviceOptions(toolConfig: Record<string, unknown>): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(toolConfig)) {
    if (!common.has(name)) options[snakeCase(name)] = value;
  }
  return options;
}

/** The search family's key: the tool's own `apiKey`, else the service-wide `ALPHA_API_KEY`. */
export function resolveSearchApiKey(toolName: string, toolConfig: Record<string, unknown>, context: ToolContext): string {
  if (typeof toolConfig.apiKey === 'string' && toolConfig.apiKey.length > 0) return toolConfig.apiKey;
  if (context.environment.alphaApiKey) return context.environment.alphaApiKey;
  throw new InvalidRequestError(
    `config.tools.${toolName}.apiKey is missing or not a string: set it (harness tools set <agentId> ${toolName} --api-key-stdin), or give the service ALPHA_API_KEY`,
  );
}
