import type { ToolName } from '../agent-config/tool-catalog.js';
import { InvalidRequestError } from '../errors.js';
import type { ModelConfig } from './model-config.js';
import type { ProviderConfigs } from './provider-config.js';
import { type ProviderName, providerNames, providerRegistry } from './providers/provider-registry.js';

/** The catalog's provider-defined tools: the provider runs them, there is no local `execute`. */
export type ProviderDefinedToolName = Extract<ToolName, 'betaSearch' | 'codeExecution' | 'urlContext'>;

/** What each provider-defined tool is, in words, for the error that says a provider lacks it. */
export const providerDefinedToolNames: Record<ProviderDefinedToolName, string> = {
  betaSearch: 'web search',
  codeExecution: 'code execution',
  urlContext: 'URL context',
};

/**
 * A provider-defined tool as its official client builds it. Typed by its shape only: each
 * `@ai-sdk/<provider>` package may carry its own copy of the AI SDK's tool types.
 */
export interface ProviderToolDefinition {
  type: 'provider';
  id: string;
}

/** A provider's own tools by catalog name, each built as its official client defines it. */
export type ProviderTools = Partial<Record<ProviderDefinedToolName, () => ProviderToolDefinition>>;

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
