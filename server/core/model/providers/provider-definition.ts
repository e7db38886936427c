import type { JSONValue, LanguageModel } from 'ai';
import { z } from 'zod';
import type { ProviderTools } from '../provider-tool-types.js';
import { keyedConnection, sharedFieldDescriptions } from './provider-fields.js';

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

/** Settings of a provider reached with an API key (and an optional `baseURL` and `headers`). */
export interface KeyedSettings {
  apiKey: string;
  baseURL?: string | undefined;
  headers?: Record<string, string> | undefined;
}

/** What a keyed provider adds to the shared shape: its client, its options key, its reasoning and tools. */
export interface KeyedProviderParts {
  /** The official client's factory (`createAnthropic`, `createGroq`...). */
  client: (options: { apiKey: string; baseURL?: string; headers?: Record<string, string>; fetch: typeof globalThis.fetch }) => (modelId: string) => LanguageModel;
  optionsKey: string;
  reasoning: ProviderDefinition<KeyedSettings>['reasoning'];
  tools?: ProviderDefinition<KeyedSettings>['tools'];
}

/** A provider whose settings are its key and connection alone: the settings, fields and endpoint every such provider shares. */
export function defineKeyedProvider(parts: KeyedProviderParts): ProviderDefinition {
  return defineProvider<KeyedSettings>({
    settings: z.strictObject(keyedConnection),
    fields: sharedFieldDescriptions,
    endpoint: (config) => config.baseURL,
    create: (config, modelId, fetch) => ({
      model: parts.client({ apiKey: config.apiKey, ...(config.baseURL ? { baseURL: config.baseURL } : {}), ...(config.headers ? { headers: config.headers } : {}), fetch })(modelId),
      optionsKey: parts.optionsKey,
    }),
    reasoning: parts.reasoning,
    ...(parts.tools ? { tools: parts.tools } : {}),
  });
}
