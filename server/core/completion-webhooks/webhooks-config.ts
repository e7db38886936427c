import { z } from 'zod';
import { parseOrThrow } from '../config-parsing/config-section-parsing.js';
import { httpUrlSchema } from '../outbound/http-url.js';

const completionWebhook = z.strictObject(
  {
    url: httpUrlSchema,
    // The contract sets no minimum: any non-empty secret signs. Choosing a strong one is the
    // account's business (docs/webhooks.md recommends 32 random bytes).
    secret: z.string({ error: 'is required and must be a non-empty string' }).min(1, 'must not be empty').max(1_000, 'must be at most 1000 characters'),
  },
  { error: 'must be an object {url, secret}' },
);

const webhooksSchema = z.strictObject({ completion: completionWebhook.optional() }, { error: 'must be an object (webhook kind to its settings)' });

/** Where a finished status row is POSTed, and the secret its signature is made with. */
export type CompletionWebhookConfig = z.infer<typeof completionWebhook>;

/** `config.webhooks`. `secret` is a secret field by its name: encrypted at rest with the config, redacted in every view. */
export type WebhooksConfig = z.infer<typeof webhooksSchema>;

/** Validate `config.webhooks`; the 400 names the first offending path (`config.webhooks.completion.secret must be ...`). */
export function validateWebhooksConfig(value: unknown): WebhooksConfig {
  return parseOrThrow(webhooksSchema, value, 'config.webhooks');
}
