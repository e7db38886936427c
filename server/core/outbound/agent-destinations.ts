import type { AgentConfig } from '../agent-config/agent-config-schema.js';
import type { OutboundPolicy } from './outbound-policy.js';

/**
 * The URLs of an agent config that the service itself calls: the model's `baseURL`, each
 * channel's `apiBaseUrl`, each tool's `workerUrl`, each MCP server's `url`, and the completion webhook's `url`. (`completionBaseUrl` is not here: the
 * worker calls it, not the service.)
 */
export function agentDestinations(config: AgentConfig): { field: string; url: string }[] {
  const destinations: { field: string; url: string }[] = [];
  const baseURL = config.provider?.openai?.baseURL;
  if (typeof baseURL === 'string') destinations.push({ field: 'config.provider.openai.baseURL', url: baseURL });
  for (const [provider, settings] of Object.entries(config.channels ?? {})) {
    const apiBaseUrl = (settings as { apiBaseUrl?: unknown } | undefined)?.apiBaseUrl;
    if (typeof apiBaseUrl === 'string') destinations.push({ field: `config.channels.${provider}.apiBaseUrl`, url: apiBaseUrl });
  }
  for (const [name, toolConfig] of Object.entries(config.tools ?? {})) {
    const workerUrl = (toolConfig as { workerUrl?: unknown } | undefined)?.workerUrl;
    if (typeof workerUrl === 'string') destinations.push({ field: `config.tools.${name}.workerUrl`, url: workerUrl });
  }
  for (const [server, settings] of Object.entries(config.mcp ?? {})) destinations.push({ field: `config.mcp.${server}.url`, url: settings.url });
  const webhookUrl = config.webhooks?.completion?.url;
  if (typeof webhookUrl === 'string') destinations.push({ field: 'config.webhooks.completion.url', url: webhookUrl });
  return destinations;
}

/** The config-time half of the outbound policy: a 400 naming the first refused field. */
export function checkAgentDestinations(policy: OutboundPolicy, config: AgentConfig): void {
  for (const { field, url } of agentDestinations(config)) policy.checkUrl(url, field);
}
