import { createOpenAI, type OpenAIProvider } from '@ai-sdk/openai';
import type { LanguageModel } from 'ai';
import type { AgentConfig } from '../agent-config/agent-config-schema.js';
import { InvalidRequestError } from '../errors.js';
import { modelFetch } from './model-fetch.js';

export interface AgentModel {
  model: LanguageModel;
  provider: OpenAIProvider;
  api: 'responses' | 'chat';
  /** Passed to every model call: the Responses API keeps nothing server-side (`store: false`). */
  providerOptions: { openai: { store: false } } | undefined;
}

/**
 * The agent's model, through the real `@ai-sdk/openai` client. `api: "responses"` (default)
 * speaks the Responses API with `store: false`, so every call carries the whole conversation
 * and works against stateless OpenAI-compatible servers; `api: "chat"` speaks Chat Completions.
 */
export function createAgentModel(config: AgentConfig, options: { fetch?: typeof fetch } = {}): AgentModel {
  const settings = config.provider?.openai;
  if (!settings) {
    throw new InvalidRequestError('config.provider is missing: configure config.provider.openai {apiKey, model, baseURL?, api?} before chatting with this agent');
  }
  const provider = createOpenAI({ apiKey: settings.apiKey, ...(settings.baseURL ? { baseURL: settings.baseURL } : {}), fetch: options.fetch ?? modelFetch });
  const api = settings.api ?? 'responses';
  return {
    model: api === 'chat' ? provider.chat(settings.model) : provider.responses(settings.model),
    provider,
    api,
    providerOptions: api === 'responses' ? { openai: { store: false } } : undefined,
  };
}
