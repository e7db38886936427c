import { zodIssueError } from '../config-parsing/zod-issue.js';
import { InvalidRequestError } from '../errors.js';
import { isRecord } from '../is-record.js';
import type { ModelConfig } from './model-config.js';
import { isProviderName, type ProviderName, providerNames, providerRegistry } from './providers/provider-registry.js';

/** `config.provider`: each configured provider's connection, keyed by provider name. */
export type ProviderConfigs = Partial<Record<ProviderName, Record<string, unknown>>>;

/** Validate `config.provider`: known names only, each with its own fields; the error names the path. */
export function validateProviderConfigs(value: unknown): ProviderConfigs {
  if (!isRecord(value)) throw new InvalidRequestError('config.provider must be an object keyed by provider name');
  const validated: ProviderConfigs = {};
  for (const [name, settings] of Object.entries(value)) {
    if (!isProviderName(name)) throw new InvalidRequestError(`config.provider.${name} is not a supported provider (supported: ${providerNames.join(', ')})`);
    if (!isRecord(settings)) throw new InvalidRequestError(`config.provider.${name} must be an object (the provider's connection settings)`);
    const parsed = providerRegistry[name].settings.safeParse(settings);
    if (!parsed.success) throw zodIssueError(`config.provider.${name}`, parsed.error);
    validated[name] = parsed.data;
  }
  return validated;
}

/**
 * Every provider `config.model` (and each fallback) names must be configured; without
 * `config.model`, the short form needs `config.provider.openai.model`.
 */
export function checkModelProviders(providers: ProviderConfigs | undefined, model: ModelConfig | undefined): void {
  if (!model) {
    if (providers?.openai && providers.openai.model === undefined) {
      throw new InvalidRequestError('config.provider.openai.model is required (the model id) unless config.model names the model');
    }
    return;
  }
  const chosen = [{ path: 'config.model.provider', provider: model.provider }, ...(model.fallbacks ?? []).map((fallback, index) => ({ path: `config.model.fallbacks.${index}.provider`, provider: fallback.provider }))];
  for (const { path, provider } of chosen) {
    if (!providers?.[provider as ProviderName]) throw new InvalidRequestError(`${path} is "${provider}" but config.provider.${provider} is not configured: add its connection settings`);
  }
}
