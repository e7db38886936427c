import { providerDefinedToolFactory } from './provider-defined-tool.js';

/**
 * `betaSearch`: the agent's provider's own web search (OpenAI's and Azure's `web_search` on the
 * Responses API, Anthropic's `web_search_20250305`, Google's `googleSearch`, xAI's `web_search`).
 */
export const betaSearchFactory = providerDefinedToolFactory('betaSearch');
