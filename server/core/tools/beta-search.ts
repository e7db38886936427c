import type { ToolSet } from 'ai';
import { InvalidRequestError } from '../errors.js';
import type { ToolFactory } from './tool-factory.js';

/**
 * The model provider's own web search: a provider-defined tool with no local `execute`; the
 * provider runs it. It needs the Responses API.
 */
export const betaSearchFactory: ToolFactory = (_toolConfig, context) => {
  if (!context.provider) {
    throw new InvalidRequestError('config.tools.betaSearch needs config.model.provider to be "openai" (the provider runs this search)');
  }
  if (context.providerApi !== 'responses') {
    throw new InvalidRequestError('config.tools.betaSearch needs config.provider.openai.api to be "responses" (the provider runs this search through the Responses API)');
  }
  // The provider tool's schema type is `{}`-shaped; a ToolSet entry is what streamText takes.
  return { betaSearch: context.provider.tools.webSearch({}) as unknown as ToolSet[string] };
};
