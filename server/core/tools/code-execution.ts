import { providerDefinedToolFactory } from './provider-defined-tool.js';

/**
 * `codeExecution`: the provider runs code in its own sandbox (OpenAI's and Azure's
 * `code_interpreter` on the Responses API, Anthropic's `code_execution_20250825`, Google's
 * `codeExecution`, xAI's `code_execution`). Nothing runs on this service.
 */
export const codeExecutionFactory = providerDefinedToolFactory('codeExecution');
