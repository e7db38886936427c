import { z } from 'zod';
import { httpUrlSchema } from '../../outbound/http-url.js';

/**
 * The fields most providers share. A key is required: without one the official clients read
 * the operator's environment (`ANTHROPIC_API_KEY`...), which must never serve an account.
 */
export const apiKeyField = z.string({ error: 'is required and must be a string' }).min(1, 'must not be empty');
export const baseURLField = httpUrlSchema.optional();
export const headersField = z.record(z.string(), z.string({ error: 'must be a string' }), { error: 'must be an object of header names to strings' }).optional();

/** The shared fields' descriptions, for `harness models`. */
export const sharedFieldDescriptions = {
  apiKey: 'API key (secret, required)',
  baseURL: 'API base URL (optional; under the outbound policy)',
  headers: 'extra request headers (optional; values are secrets)',
};

/** The connection fields with a required key: what most providers take. */
export const keyedConnection = { apiKey: apiKeyField, baseURL: baseURLField, headers: headersField };

/** The optional `baseURL` and `headers` of settings, as the clients take them (absent when unset). */
export function connectionOptions(settings: { baseURL?: string | undefined; headers?: Record<string, string> | undefined }): { baseURL?: string; headers?: Record<string, string> } {
  return { ...(settings.baseURL ? { baseURL: settings.baseURL } : {}), ...(settings.headers ? { headers: settings.headers } : {}) };
}

/** The thinking budget in tokens for a reasoning level (Anthropic, Google, Bedrock). */
export const reasoningBudgets = { low: 2048, medium: 8192, high: 24576 } as const;
