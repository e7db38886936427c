import type { ToolName } from '../config-parsing/tool-catalog.js';

/** The catalog's provider-defined tools: the provider runs them, there is no local `execute`. */
export type ProviderDefinedToolName = Extract<ToolName, 'betaSearch' | 'codeExecution' | 'urlContext'>;

/** What each provider-defined tool is, in words, for the error that says a provider lacks it. */
export const providerDefinedToolNames: Record<ProviderDefinedToolName, string> = {
  betaSearch: 'web search',
  codeExecution: 'code execution',
  urlContext: 'URL context',
};

/**
 * A provider-defined tool as its official client builds it. Typed by its shape only: each
 * `@ai-sdk/<provider>` package may carry its own copy of the AI SDK's tool types.
 */
export interface ProviderToolDefinition {
  type: 'provider';
  id: string;
}

/** A provider's own tools by catalog name, each built as its official client defines it. */
export type ProviderTools = Partial<Record<ProviderDefinedToolName, () => ProviderToolDefinition>>;
