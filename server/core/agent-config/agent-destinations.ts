import type { AgentConfig } from './agent-config-schema.js';
import { isProviderName, providerRegistry } from '../model/providers/provider-registry.js';
import type { OutboundPolicy } from '../outbound/outbound-policy.js';
import type { DestinationKind } from '../outbound/outbound-settings.js';

/** One URL of an agent config that the service calls, with the field that holds it and its kind. */
export interface AgentDestination {
  field: string;
  url: string;
  kind: DestinationKind;
}

/**
 * The URLs of an agent config that the service itself calls: each model provider's `baseURL`,
 * or the endpoint its settings name (Bedrock's region, Azure's resource: `model`),
 * each channel's `apiBaseUrl` (`channels`), each tool's `workerUrl` (`workers`), each MCP server's
 * `url` (`mcp`), and the completion webhook's `url` (`webhooks`). (`completionBaseUrl` is not
 * here: the worker calls it, not the service.)
 */
export function agentDestinations(config: AgentConfig): AgentDestination[] {
  const destinations: AgentDestination[] = [];
  for (const [name, settings] of Object.entries(config.provider ?? {})) {
    if (!isProviderName(name) || !settings) continue;
    const url = providerRegistry[name].endpoint(settings);
    // The field named is `baseURL` when set; otherwise the field the endpoint comes from.
    const field = typeof settings.baseURL === 'string' ? 'baseURL' : name === 'amazon-bedrock' ? 'region' : 'resourceName';
    if (typeof url === 'string') destinations.push({ field: `config.provider.${name}.${field}`, url, kind: 'model' });
  }
  for (const [provider, settings] of Object.entries(config.channels ?? {})) {
    const apiBaseUrl = (settings as { apiBaseUrl?: unknown } | undefined)?.apiBaseUrl;
    if (typeof apiBaseUrl === 'string') destinations.push({ field: `config.channels.${provider}.apiBaseUrl`, url: apiBaseUrl, kind: 'channels' });
  }
  for (const [name, toolConfig] of Object.entries(config.tools ?? {})) {
    const workerUrl = (toolConfig as { workerUrl?: unknown } | undefined)?.workerUrl;
    if (typeof workerUrl === 'string') destinations.push({ field: `config.tools.${name}.workerUrl`, url: workerUrl, kind: 'workers' });
  }
  for (const [server, settings] of Object.entries(config.mcp ?? {})) destinations.push({ field: `config.mcp.${server}.url`, url: settings.url, kind: 'mcp' });
  const webhookUrl = config.webhooks?.completion?.url;
  if (typeof webhookUrl === 'string') destinations.push({ field: 'config.webhooks.completion.url', url: webhookUrl, kind: 'webhooks' });
  return destinations;
}

/** The config-time half of the outbound policy: a 400 naming the first refused field. */
export function checkAgentDestinations(policy: OutboundPolicy, config: AgentConfig): void {
  for (const { field, url, kind } of agentDestinations(config)) policy.checkUrl(url, field, kind);
}
