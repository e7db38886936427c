import { azure, createAzure } from '@ai-sdk/azure';
import { z } from 'zod';
import { defineProvider } from './provider-definition.js';
import { apiKeyField, baseURLField, headersField, sharedFieldDescriptions } from './provider-fields.js';

const settings = z
  .strictObject({
    apiKey: apiKeyField,
    resourceName: z.string({ error: 'must be a string (the Azure resource name)' }).regex(/^[a-zA-Z0-9][a-zA-Z0-9-]{0,62}$/, 'must be an Azure resource name (letters, digits, dashes)').optional(),
    baseURL: baseURLField,
    apiVersion: z.string({ error: 'must be a string' }).regex(/^[a-z0-9.-]{1,40}$/, 'must be an API version such as "v1" or "2025-04-01-preview"').optional(),
    useDeploymentBasedUrls: z.boolean({ error: 'must be a boolean' }).optional(),
    api: z.enum(['responses', 'chat'], { error: 'must be "responses" or "chat"' }).optional(),
    headers: headersField,
  })
  .superRefine((config, context) => {
    if (config.resourceName === undefined && config.baseURL === undefined) context.addIssue({ code: 'custom', path: ['resourceName'], message: 'or baseURL is required' });
  });

type AzureConfig = z.infer<typeof settings>;

/**
 * Azure OpenAI through `@ai-sdk/azure`: the model id is the deployment name. The resource name
 * or `baseURL` is required, so the client never falls back to the operator's `AZURE_RESOURCE_NAME`.
 */
export const azureProvider = defineProvider<AzureConfig>({
  settings,
  fields: {
    apiKey: sharedFieldDescriptions.apiKey,
    resourceName: 'Azure resource name (https://<resourceName>.openai.azure.com), or baseURL',
    baseURL: sharedFieldDescriptions.baseURL,
    apiVersion: 'API version (optional, default "v1")',
    useDeploymentBasedUrls: 'use /deployments/<id>/... URLs (optional)',
    api: '"responses" (default) or "chat"',
    headers: sharedFieldDescriptions.headers,
  },
  endpoint: (config) => config.baseURL ?? `https://${config.resourceName}.openai.azure.com`,
  create: (config, modelId, fetch) => {
    const provider = createAzure({
      apiKey: config.apiKey,
      ...(config.baseURL ? { baseURL: config.baseURL } : { resourceName: config.resourceName! }),
      ...(config.apiVersion ? { apiVersion: config.apiVersion } : {}),
      ...(config.useDeploymentBasedUrls !== undefined ? { useDeploymentBasedUrls: config.useDeploymentBasedUrls } : {}),
      ...(config.headers ? { headers: config.headers } : {}),
      fetch,
    });
    const api = config.api ?? 'responses';
    return { model: api === 'chat' ? provider.chat(modelId) : provider.responses(modelId), optionsKey: 'azure', ...(api === 'responses' ? { baseOptions: { store: false } } : {}) };
  },
  // A deployment's name says nothing of its model, so the client is told it reasons (`forceReasoning`).
  reasoning: (level, config) => (level === 'none' ? { reasoningEffort: 'none' } : { reasoningEffort: level, forceReasoning: true, ...((config.api ?? 'responses') === 'responses' ? { reasoningSummary: 'auto' } : {}) }),
  // As OpenAI's: only the Responses API runs them.
  tools: (config) => ((config.api ?? 'responses') === 'chat' ? {} : { betaSearch: () => azure.tools.webSearch({}), codeExecution: () => azure.tools.codeInterpreter({}) }),
});
