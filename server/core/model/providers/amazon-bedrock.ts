import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { z } from 'zod';
import { defineProvider } from './provider-definition.js';
import { apiKeyField, baseURLField, headersField, reasoningBudgets, sharedFieldDescriptions } from './provider-fields.js';

const secretField = z.string({ error: 'must be a string' }).min(1, 'must not be empty');

const settings = z
  .strictObject({
    region: z.string({ error: 'is required and must be an AWS region such as "us-east-1"' }).regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, 'must be an AWS region such as "us-east-1"'),
    apiKey: apiKeyField.optional(),
    accessKeyId: secretField.optional(),
    secretAccessKey: secretField.optional(),
    sessionToken: secretField.optional(),
    baseURL: baseURLField,
    headers: headersField,
  })
  .superRefine((config, context) => {
    if (config.apiKey !== undefined) return;
    if (config.accessKeyId === undefined) context.addIssue({ code: 'custom', path: ['accessKeyId'], message: 'is required (with secretAccessKey) unless apiKey is given' });
    else if (config.secretAccessKey === undefined) context.addIssue({ code: 'custom', path: ['secretAccessKey'], message: 'is required with accessKeyId' });
  });

type BedrockConfig = z.infer<typeof settings>;

/** Where Bedrock's runtime API is: the `baseURL`, or the region's public endpoint. */
function bedrockEndpoint(config: BedrockConfig): string {
  return config.baseURL ?? `https://bedrock-runtime.${config.region}.amazonaws.com`;
}

/**
 * Amazon Bedrock's Converse API through `@ai-sdk/amazon-bedrock`: SigV4 with the access keys, or
 * a Bedrock API key. Everything is passed explicitly (the endpoint, an empty API key in SigV4
 * mode, the credentials through `credentialProvider`) so the client never reads the operator's
 * `AWS_*` environment variables for an account's agent.
 */
export const amazonBedrockProvider = defineProvider<BedrockConfig>({
  settings,
  fields: {
    region: 'AWS region, e.g. "us-east-1" (required)',
    accessKeyId: 'AWS access key id (secret; with secretAccessKey, unless apiKey)',
    secretAccessKey: 'AWS secret access key (secret)',
    sessionToken: 'AWS session token (secret, optional)',
    apiKey: 'Bedrock API key (secret; instead of the access keys)',
    baseURL: 'endpoint (optional; default https://bedrock-runtime.<region>.amazonaws.com; under the outbound policy)',
    headers: sharedFieldDescriptions.headers,
  },
  endpoint: bedrockEndpoint,
  create: (config, modelId, fetch) => {
    const credentials = config.apiKey
      ? { apiKey: config.apiKey }
      : {
          apiKey: '',
          credentialProvider: () => Promise.resolve({ accessKeyId: config.accessKeyId!, secretAccessKey: config.secretAccessKey!, ...(config.sessionToken ? { sessionToken: config.sessionToken } : {}) }),
        };
    const provider = createAmazonBedrock({ region: config.region, baseURL: bedrockEndpoint(config), ...credentials, ...(config.headers ? { headers: config.headers } : {}), fetch });
    return { model: provider(modelId), optionsKey: 'amazonBedrock' };
  },
  reasoning: (level) => ({ reasoningConfig: level === 'none' ? { type: 'disabled' } : { type: 'enabled', budgetTokens: reasoningBudgets[level] } }),
});
