import type { LanguageModel } from 'ai';
import type { ProviderTools } from './provider-tool-types.js';
import type { ModelProviderOptions } from './providers/provider-definition.js';
import type { ProviderName } from './providers/provider-registry.js';

/** Which provider and model answered a call. */
export interface AnsweringModel {
  providerName: ProviderName;
  modelId: string;
}

/** The call settings a turn passes to `streamText` (only those set). */
export interface ModelCallSettings {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  maxRetries?: number;
  /** `timeoutMs`: the whole call's time limit, in ms. */
  timeout?: number;
}

export interface AgentModel {
  model: LanguageModel;
  /** Which provider and model answer: for the status row, the message usage and the usage rows. */
  providerName: ProviderName;
  modelId: string;
  /** The provider's own tools (`betaSearch`, `codeExecution`, `urlContext`) it has, for the tool factories. */
  providerTools: ProviderTools;
  callSettings: ModelCallSettings;
  /** Passed to every model call: ours (`store: false`, the reasoning option), `config.model.providerOptions` over them. */
  providerOptions: ModelProviderOptions | undefined;
  /** With `config.model.fallbacks`: the provider and model that answered the latest call (`providerName`/`modelId` otherwise). */
  answeredBy?: () => AnsweringModel;
}
