import { z } from 'zod';
import { httpUrlSchema } from '../outbound/http-url.js';

/**
 * The one list of external tools: model-facing name → what kind of tool it is
 * and the schema of its options. The turns code pairs each name with a factory through a
 * map typed by `ToolName`, so a tool cannot be added to one list and forgotten in the other.
 */

/** Options every tool accepts, whatever it does: on/off, async, where it runs, approval, its key. */
export const commonToolOptions = {
  enabled: z.boolean({ error: 'must be a boolean' }).optional(),
  async: z.boolean({ error: 'must be a boolean' }).optional(),
  execution: z.enum(['same-invocation', 'external-dispatch'], { error: 'must be "same-invocation" or "external-dispatch"' }).optional(),
  needsApproval: z.boolean({ error: 'must be a boolean' }).optional(),
  apiKey: z.string({ error: 'must be a string' }).min(1, 'must not be empty').optional(),
};

/** Names of the common options: the harness's own settings, never passed on to an outside service (a key goes only in its Authorization header). */
export const commonToolOptionNames = [
  'enabled',
  'async',
  'execution',
  'needsApproval',
  'apiKey',
  'completionBaseUrl',
  'completionBearerToken',
  'workerUrl',
] as const;

export type ToolKind = 'external' | 'provider-defined' | 'local';

export interface ToolCatalogEntry {
  kind: ToolKind;
  /** One line for `harness tools list` and docs. */
  summary: string;
  options: z.ZodType;
}

export const toolCatalog = {
  alphaSearch: {
    kind: 'external',
    summary: 'Web search through the third-party search service.',
    // Options beyond the common ones are the service's own and pass through.
    options: z.looseObject({
      ...commonToolOptions,
      maxResults: z.number({ error: 'must be a positive integer' }).int('must be a positive integer').positive('must be a positive integer').optional(),
    }),
  },
  alphaExtract: {
    kind: 'external',
    summary: 'Page extraction through the third-party search service.',
    options: z.looseObject({ ...commonToolOptions }),
  },
  betaSearch: {
    kind: 'provider-defined',
    summary: "The model provider's own web search: OpenAI, Azure, Anthropic, Google, xAI (no local execute).",
    options: z.strictObject({ ...commonToolOptions }),
  },
  codeExecution: {
    kind: 'provider-defined',
    summary: "The model provider's own code execution: OpenAI, Azure, Anthropic, Google, xAI (no local execute).",
    options: z.strictObject({ ...commonToolOptions }),
  },
  urlContext: {
    kind: 'provider-defined',
    summary: "The model provider's own reading of URLs in the conversation: Google (no local execute).",
    options: z.strictObject({ ...commonToolOptions }),
  },
  test_async: {
    kind: 'local',
    summary: 'A local example tool that waits a while and returns structured data.',
    options: z.strictObject({
      ...commonToolOptions,
      durationMs: z.number({ error: 'must be a whole number of milliseconds from 0 to 600000' }).int('must be a whole number of milliseconds from 0 to 600000').min(0, 'must be a whole number of milliseconds from 0 to 600000').max(600_000, 'must be a whole number of milliseconds from 0 to 600000').optional(),
    }),
  },
  test_external_async: {
    kind: 'local',
    summary: 'An example tool that hands its work to an external worker (external-dispatch).',
    options: z.strictObject({
      ...commonToolOptions,
      completionBaseUrl: httpUrlSchema,
      completionBearerToken: z.string({ error: 'is required (the bearer the worker sends to the completion endpoint)' }).min(1, 'must not be empty'),
      workerUrl: httpUrlSchema.optional(),
    }),
  },
} satisfies Record<string, ToolCatalogEntry>;

export type ToolName = keyof typeof toolCatalog;

export const toolNames = Object.keys(toolCatalog) as ToolName[];

export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(toolCatalog, name);
}

/** Tools that exist but may not be configured under `config.tools`, with the config key they come from instead. */
export const toolsConfiguredElsewhere: Record<string, string> = {
  bash: 'config.sandbox and config.workspace',
  read: 'config.workspace',
  write: 'config.workspace',
  edit: 'config.workspace',
  glob: 'config.workspace',
  grep: 'config.workspace',
  run_subagent: 'config.subagent',
  load_skill: 'config.skills',
  memory_save: 'config.memory',
  memory_search: 'config.memory',
  memory_forget: 'config.memory',
};
