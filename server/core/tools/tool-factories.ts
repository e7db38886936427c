import type { ToolName } from '../agent-config/tool-catalog.js';
import { alphaExtractFactory } from './alpha-extract.js';
import { alphaSearchFactory } from './alpha-search.js';
import { betaSearchFactory } from './beta-search.js';
import { testAsyncFactory } from './test-async.js';
import { testExternalAsyncFactory } from './test-external-async.js';
import type { ToolFactory } from './tool-factory.js';

/**
 * Spec rule 5: external tools come only from this fixed map of model-facing name → factory.
 * Typed by the catalog's names, so a tool cannot be in one list and missing from the other.
 */
export const toolFactories: Record<ToolName, ToolFactory> = {
  alphaSearch: alphaSearchFactory,
  alphaExtract: alphaExtractFactory,
  betaSearch: betaSearchFactory,
  test_async: testAsyncFactory,
  test_external_async: testExternalAsyncFactory,
};
