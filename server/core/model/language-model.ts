import type { JSONValue } from 'ai';
import type { AgentConfig } from '../agent-config/agent-config-schema.js';
import { InvalidRequestError } from '../errors.js';
import type { ModelConfig } from './model-config.js';
import type { AgentModel, ModelCallSettings } from './agent-model.js';
import { withFallbacks } from './model-failover.js';
import { applyModelOverrides, type ModelOverrides } from './model-overrides.js';
import { modelFetch } from './model-fetch.js';
import { mergeProviderOptions } from './provider-options.js';
import { providerToolsOf } from './provider-tools.js';
import { type ProviderName, providerRegistry } from './providers/provider-registry.js';

export type { AgentModel, AnsweringModel, ModelCallSettings } from './agent-model.js';

const callSettingNames = ['temperature', 'topP', 'topK', 'maxOutputTokens', 'stopSequences', 'seed', 'presencePenalty', 'frequencyPenalty', 'maxRetries'] as const;

function callSettingsOf(model: ModelConfig): ModelCallSettings {
  const settings: Record<string, unknown> = {};
  for (const name of callSettingNames) if (model[name] !== undefined) settings[name] = model[name];
  if (model.timeoutMs !== undefined) settings.timeout = model.timeoutMs;
  return settings as ModelCallSettings;
}

/** `config.model`, or the short form `config.provider.openai.model` (agents stored before `config.model`). */
function chosenModel(config: AgentConfig): ModelConfig {
  if (config.model) return config.model;
  const openai = config.provider?.openai;
  if (typeof openai?.model === 'string') return { provider: 'openai', id: openai.model };
  const missing = config.provider && Object.keys(config.provider).length > 0 ? 'config.model' : 'config.provider';
  throw new InvalidRequestError(`${missing} is missing: configure config.provider.<name> and config.model {provider, id} (or the short form config.provider.openai {apiKey, model}) before chatting with this agent`);
}

/**
 * The agent's model, through the official `@ai-sdk/<provider>` client of the provider
 * `config.model` names (the registry in `providers/`), calling through `fetch` (the outbound
 * policy's model fetch), with the call settings and provider options the turn passes on.
 */
export function createAgentModel(config: AgentConfig, options: { fetch?: typeof fetch; overrides?: ModelOverrides } = {}): AgentModel {
  // A request's `model` settings go over every model of the chain, its fallbacks too.
  const chosen = applyModelOverrides(chosenModel(config), options.overrides);
  const fallbacks = (chosen.fallbacks ?? []).map((fallback, index) => {
    const provider = fallback.provider as ProviderName;
    if (!config.provider?.[provider]) throw new InvalidRequestError(`config.model.fallbacks.${index}.provider is "${provider}" but config.provider.${provider} is not configured`);
    return createAgentModel({ ...config, model: { ...fallback, provider } }, options);
  });
  const settings = config.provider?.[chosen.provider];
  if (!settings) throw new InvalidRequestError(`config.model.provider is "${chosen.provider}" but config.provider.${chosen.provider} is not configured`);
  const definition = providerRegistry[chosen.provider];
  const built = definition.create(settings, chosen.id, options.fetch ?? modelFetch);
  const ours: Record<string, JSONValue> = { ...built.baseOptions, ...(chosen.reasoning ? definition.reasoning(chosen.reasoning, settings) : {}) };
  const providerOptions = mergeProviderOptions(Object.keys(ours).length > 0 ? { [built.optionsKey]: ours } : {}, chosen.providerOptions);
  return withFallbacks({
    model: built.model,
    providerName: chosen.provider,
    modelId: chosen.id,
    providerTools: providerToolsOf(chosen.provider, settings),
    callSettings: callSettingsOf(chosen),
    providerOptions: Object.keys(providerOptions).length > 0 ? providerOptions : undefined,
  }, fallbacks);
}
