import { InvalidRequestError } from '../errors.js';
import type { ModelConfig } from './model-config.js';
import type { ProviderConfigs } from './provider-config.js';
import { type ProviderName, providerNames, providerRegistry } from './providers/provider-registry.js';
import { type ProviderDefinedToolName, providerDefinedToolNames, type ProviderTools } from './provider-tool-types.js';

export { type ProviderDefinedToolName, providerDefinedToolNames, type ProviderToolDefinition, type ProviderTools } from './provider-tool-types.js';

/** The provider-defined tools `config.provider.<name>` offers (none where the provider has none). */
export function providerToolsOf(provider: ProviderName, settings: Record<string, unknown>): ProviderTools {
  return providerRegistry[provider].tools?.(settings) ?? {};
}

/** Which providers offer a tool, for the error message (OpenAI and Azure only through the Responses API). */
function providersOffering(name: ProviderDefinedToolName): string {
  return providerNames
    .filter((provider) => providerToolsOf(provider, {})[name])
    .map((provider) => (provider === 'openai' || provider === 'azure' ? `${provider} (api "responses")` : provider))
    .join(', ');
}

/** The 400 for a provider-defined tool the agent's provider does not have; names the field and who has it. */
export function providerToolMissing(name: ProviderDefinedToolName, provider: ProviderName, api?: unknown): InvalidRequestError {
  const onApi = api === 'chat' ? ` with config.provider.${provider}.api "chat"` : '';
  return new InvalidRequestError(
    `config.tools.${name} is the model provider's own ${providerDefinedToolNames[name]}, which config.model.provider "${provider}"${onApi} does not have (providers that have it: ${providersOffering(name)})`,
  );
}

function isProviderDefined(name: string): name is ProviderDefinedToolName {
  return Object.hasOwn(providerDefinedToolNames, name);
}

/**
 * When the config is written: every enabled provider-defined tool in `config.tools` must exist
 * on the provider `config.model` (or the short form) chooses. Without a chosen model there is
 * nothing to check yet; the turn refuses such an agent anyway.
 */
export function checkProviderTools(providers: ProviderConfigs | undefined, model: ModelConfig | undefined, tools: Record<string, Record<string, unknown>> | undefined): void {
  const provider: ProviderName | undefined = model ? model.provider : typeof providers?.openai?.model === 'string' ? 'openai' : undefined;
  const settings = provider ? providers?.[provider] : undefined;
  if (!provider || !settings) return;
  const offered = providerToolsOf(provider, settings);
  for (const [name, options] of Object.entries(tools ?? {})) {
    if (isProviderDefined(name) && options.enabled !== false && !offered[name]) throw providerToolMissing(name, provider, settings.api);
  }
}
