import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { isRecord } from '../is-record.js';
import { modelCallSettingsShape } from './model-call-settings.js';
import type { ModelConfig } from './model-config.js';
import { mergeProviderOptions } from './provider-options.js';
import type { ModelProviderOptions } from './providers/provider-definition.js';

/**
 * A request's `model`: settings for that turn only, over `config.model`'s. Which provider and
 * model answer, and their keys, are the agent's config: a request cannot change them.
 */
const modelOverridesSchema = z.strictObject({
  temperature: modelCallSettingsShape.temperature,
  topP: modelCallSettingsShape.topP,
  maxOutputTokens: modelCallSettingsShape.maxOutputTokens,
  reasoning: modelCallSettingsShape.reasoning,
  providerOptions: modelCallSettingsShape.providerOptions,
});

export type ModelOverrides = z.infer<typeof modelOverridesSchema>;

const overridableNames = Object.keys(modelOverridesSchema.shape);

/** Reads a request's `model` field; a field it may not set (`provider`, `id`, `apiKey`...) is a 400 naming it. */
export function parseModelOverrides(value: unknown, field = 'model'): ModelOverrides | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) throw new InvalidRequestError(`${field} must be an object {${overridableNames.join(', ')}}`);
  const refused = Object.keys(value).find((name) => !overridableNames.includes(name));
  if (refused !== undefined) {
    throw new InvalidRequestError(`${field}.${refused} cannot be set by a request: only ${overridableNames.join(', ')} can (the provider, the model and its keys are the agent's config)`);
  }
  const parsed = modelOverridesSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidRequestError(`${[field, ...(issue?.path ?? [])].join('.')} ${issue?.message ?? 'is invalid'}`);
  }
  return Object.keys(parsed.data).length > 0 ? parsed.data : undefined;
}

/** A model's settings with a request's overrides over them: each set field wins, `providerOptions` deep-merged (the request's win key by key). */
export function applyModelOverrides<Model extends Pick<ModelConfig, 'temperature' | 'topP' | 'maxOutputTokens' | 'reasoning' | 'providerOptions'>>(model: Model, overrides: ModelOverrides | undefined): Model {
  if (!overrides) return model;
  const { providerOptions, ...settings } = overrides;
  const merged = { ...model } as Model;
  for (const [name, setting] of Object.entries(settings)) if (setting !== undefined) (merged as Record<string, unknown>)[name] = setting;
  if (providerOptions) merged.providerOptions = mergeProviderOptions((model.providerOptions ?? {}) as ModelProviderOptions, providerOptions) as Model['providerOptions'];
  return merged;
}
