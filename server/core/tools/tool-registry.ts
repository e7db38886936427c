import type { ToolName } from '../config-parsing/tool-catalog.js';
import { alphaExtractFactory } from './alpha-extract.js';
import { alphaSearchFactory } from './alpha-search.js';
import { betaSearchFactory } from './beta-search.js';
import { codeExecutionFactory } from './code-execution.js';
import { testAsyncFactory } from './test-async.js';
import { testExternalAsyncFactory } from './test-external-async.js';
import type { ToolFactory } from './tool-factory.js';
import { urlContextFactory } from './url-context.js';

/**
 * The tool registry: external tools come only from this fixed map of model-facing name →
 * factory, never from code an account could name. Typed by the catalog's names, so a tool
 * cannot be in one list and missing from the other.
 */
export const toolFactories: Record<ToolName, ToolFactory> = {
  alphaSearch: alphaSearchFactory,
  alphaExtract: alphaExtractFactory,
  betaSearch: betaSearchFactory,
  codeExecution: codeExecutionFactory,
  urlContext: urlContextFactory,
  test_async: testAsyncFactory,
  test_external_async: testExternalAsyncFactory,
};
