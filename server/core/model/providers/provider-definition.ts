import type { JSONValue, LanguageModel } from 'ai';
import type { z } from 'zod';
import type { ProviderTools } from '../provider-tool-types.js';

/** `config.model.reasoning`: how hard the model thinks before it answers. */
export type ReasoningLevel = 'none' | 'low' | 'medium' | 'high';

/** Options per provider key, as `streamText`'s `providerOptions` takes them. */
export type ModelProviderOptions = Record<string, Record<string, JSONValue>>;

/** What a provider builds for one model id. */
export interface ProviderModel {
  model: LanguageModel;
  /** The `providerOptions` key this provider's client reads (`openai`, `anthropic`, `amazonBedrock`...). */
  optionsKey: string;
  /** Options always sent (the OpenAI Responses API's `store: false`). */
  baseOptions?: Record<string, JSONValue>;
}

/**
 * One model provider: the fields `config.provider.<name>` takes, where its calls go, how its
 * official AI SDK client is built and how `config.model.reasoning` reads in its own options.
 * Every provider has the same shape, registered in one static map (`provider-registry.ts`).
 */
export interface ProviderDefinition<Settings = Record<string, unknown>> {
  /** Validates `config.provider.<name>`; a missing credential is an error, never the operator's environment variable. */
  settings: z.ZodType<Settings>;
  /** Each field and what it is, for `harness models` and docs/models.md. */
  fields: Record<string, string>;
  /** The address the client calls (its `baseURL`, or the endpoint derived from the settings): under the outbound policy as `model`. */
  endpoint: (settings: Settings) => string | undefined;
  /** The model through the official client, calling through `fetch` (the outbound policy's model fetch). */
  create: (settings: Settings, modelId: string, fetch: typeof globalThis.fetch) => ProviderModel;
  /** `reasoning` as this provider's own options (under `optionsKey`); undefined where the provider has no such option. */
  reasoning: (level: ReasoningLevel, settings: Settings) => Record<string, JSONValue> | undefined;
  /**
   * The provider's own tools (`betaSearch`, `codeExecution`, `urlContext`), as its official
   * client defines them; absent or empty where it has none. Tool definitions are plain data,
   * the same on every client, so they are read from the package's `tools` without a key.
   */
  tools?: (settings: Settings) => ProviderTools;
}

/** Keeps each provider file typed by its own settings while the registry holds them side by side. */
export function defineProvider<Settings>(definition: ProviderDefinition<Settings>): ProviderDefinition {
  return definition as unknown as ProviderDefinition;
}
