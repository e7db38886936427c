import { z } from 'zod';
import { modelCallSettingsShape } from './model-call-settings.js';
import { providerNames } from './providers/provider-registry.js';

export const providerNameSchema = z.enum(providerNames as [string, ...string[]], { error: `must name a provider (${providerNames.join(', ')})` });
export const modelIdSchema = z.string({ error: 'is required and must be a string (the model id)' }).min(1, 'must not be empty').max(300, 'must be at most 300 characters');

/**
 * `config.model.fallbacks`: the models a call moves to, in order, when the one before fails
 * before its first token (`model-failover.ts`). Each provider must be configured; that is checked
 * where the chain is built.
 */
export const modelFallbacksConfigSchema = z
  .array(z.strictObject({ provider: providerNameSchema, id: modelIdSchema, ...modelCallSettingsShape }, { error: 'must be an object {provider, id, ...settings}' }), { error: 'must be an array of {provider, id, ...settings}' })
  .max(5, 'must have at most 5 entries');

export type ModelFallbacksConfig = z.infer<typeof modelFallbacksConfigSchema>;
