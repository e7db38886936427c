import { describe, expect, it } from 'vitest';
import { runInProcess } from '../test-support/run-in-process.js';
import { createTestContext } from '../test-support/test-context.js';

describe('harness models', () => {
  it('lists every provider and the fields it takes, without a service', async () => {
    const context = await createTestContext();
    await runInProcess(context, ['models']);
    const output = context.output();
    for (const provider of ['openai', 'anthropic', 'google', 'amazon-bedrock', 'azure', 'mistral', 'groq', 'xai', 'deepseek', 'openai-compatible']) expect(output).toMatch(new RegExp(`^${provider} +`, 'm'));
    expect(output).toMatch(/secretAccessKey +AWS secret access key/);
    expect(output).toMatch(/resourceName +Azure resource name/);
  });

  it('--json gives each provider with its fields', async () => {
    const context = await createTestContext();
    await runInProcess(context, ['models', '--json']);
    const { providers } = JSON.parse(context.output()) as { providers: { provider: string; fields: { name: string }[] }[] };
    expect(providers.find((entry) => entry.provider === 'amazon-bedrock')?.fields.map((field) => field.name)).toEqual(['region', 'accessKeyId', 'secretAccessKey', 'sessionToken', 'apiKey', 'baseURL', 'headers']);
    expect(providers.find((entry) => entry.provider === 'openai-compatible')?.fields.map((field) => field.name)).toContain('name');
  });
});
