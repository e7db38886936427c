import { z } from 'zod';
import { modelCallSettingsShape } from './model-call-settings.js';
import { modelFallbacksConfigSchema, modelIdSchema, providerNameSchema } from './model-fallbacks-config.js';
import { modelOutputConfigSchema } from './model-output-config.js';
import type { ProviderName } from './providers/provider-registry.js';

/**
 * `config.model`: which configured provider and model a turn calls, and how. `contextWindow` is
 * the model's window in tokens, stored for the context strategy.
 */
export const modelConfigSchema = z.strictObject(
  {
    provider: providerNameSchema,
    id: modelIdSchema,
    ...modelCallSettingsShape,
    contextWindow: z.number({ error: 'must be an integer from 1000 to 100000000' }).int('must be an integer from 1000 to 100000000').min(1000, 'must be an integer from 1000 to 100000000').max(100_000_000, 'must be an integer from 1000 to 100000000').optional(),
    output: modelOutputConfigSchema.optional(),
    fallbacks: modelFallbacksConfigSchema.optional(),
  },
  { error: 'must be an object {provider, id, ...settings}' },
);

export type ModelConfig = Omit<z.infer<typeof modelConfigSchema>, 'provider'> & { provider: ProviderName };
