import type { AttemptResult } from './retry-schedule.js';
import { signWebhook } from './webhook-signature.js';

export interface WebhookPost {
  url: string;
  secret: string;
  /** The exact bytes signed and sent. */
  body: string;
  deliveryId: string;
  eventId: string;
  timestampSeconds: number;
  timeoutMs: number;
  /** The outbound policy's fetch: every connection to an account-chosen URL is checked. */
  fetch: typeof fetch;
  /** Ends the attempt early (the service stops). */
  signal?: AbortSignal;
}

/** The headers of one attempt; the signature is made per attempt, over that attempt's timestamp. */
export function webhookHeaders(post: Pick<WebhookPost, 'secret' | 'body' | 'deliveryId' | 'eventId' | 'timestampSeconds'>): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'harness-webhooks',
    'x-harness-timestamp': String(post.timestampSeconds),
    'x-harness-signature': signWebhook(post.secret, post.timestampSeconds, post.body),
    'x-harness-delivery': post.deliveryId,
    'x-harness-event': post.eventId,
  };
}

/** Why a fetch failed, from undici's `fetch failed` and its cause; never a header or a body. */
function failureReason(error: unknown, timeoutMs: number): { error: string; retryable: boolean } {
  const failure = error as Error & { cause?: Error };
  if (failure.name === 'TimeoutError' || failure.name === 'AbortError') return { error: `no answer within ${timeoutMs} ms`, retryable: true };
  const cause = failure.cause;
  // The outbound policy refused the address: retrying the same destination cannot help.
  if (cause?.name === 'OutboundDestinationRefusedError') return { error: cause.message, retryable: false };
  return { error: cause?.message ? `${failure.message}: ${cause.message}` : failure.message, retryable: true };
}

/**
 * One POST of a completion webhook. Redirects are not followed (a 3xx is the answer), the
 * answer's body is not read, and the whole attempt is bounded by `timeoutMs`.
 */
export async function postWebhook(post: WebhookPost): Promise<AttemptResult> {
  try {
    const response = await post.fetch(post.url, {
      method: 'POST',
      headers: webhookHeaders(post),
      body: post.body,
      redirect: 'manual',
      signal: post.signal ? AbortSignal.any([AbortSignal.timeout(post.timeoutMs), post.signal]) : AbortSignal.timeout(post.timeoutMs),
    });
    await response.body?.cancel().catch(() => undefined);
    return { statusCode: response.status };
  } catch (error) {
    return failureReason(error, post.timeoutMs);
  }
}
