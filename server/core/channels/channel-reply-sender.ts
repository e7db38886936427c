import type { Logger } from '../logger.js';
import { readBoundedJson } from '../outbound/read-bounded-body.js';
import type { OutboundRequest } from './channel-adapter.js';
import { defaultChannelSettings } from './channel-settings.js';

export interface ReplySendContext {
  fetch: typeof fetch;
  logger: Logger;
  /** Ids for the log line (account, agent, provider, delivery); never a URL or a token. */
  logFields: Record<string, unknown>;
  /** Per request, from the request to the answer's last byte (default `defaultChannelSettings`: 15 seconds). */
  timeoutMs?: number;
  /** The bytes read from one answer (default `defaultChannelSettings`: 1 MiB); past it the reply counts as failed. */
  maxResponseBytes?: number;
}

/**
 * Posts the reply requests in order and stops at the first failure (a later piece posted
 * after a missing one would read out of order). Failures are logged with the status code
 * only: provider URLs can carry the bot token (Telegram, Zalo) or the page token (Pancake).
 * Returns whether every request succeeded.
 */
export async function sendReplyRequests(requests: OutboundRequest[], context: ReplySendContext): Promise<boolean> {
  for (const [index, request] of requests.entries()) {
    let status: number | undefined;
    let refused: boolean;
    try {
      const response = await context.fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: JSON.stringify(request.body),
        signal: AbortSignal.timeout(context.timeoutMs ?? defaultChannelSettings.requestTimeoutMs),
      });
      status = response.status;
      // Slack, Telegram and Zalo answer API errors with a 200 and `ok: false`. The account chose
      // the API's address: its answer is read up to a limit (the signal above bounds its time).
      const answer = (await readBoundedJson(response, context.maxResponseBytes ?? defaultChannelSettings.maxResponseBytes, "the channel API's answer")) as { ok?: unknown } | undefined;
      refused = !response.ok || answer?.ok === false;
    } catch (error) {
      context.logger.warn(
        { event: 'channel-reply', ...context.logFields, piece: index + 1, pieces: requests.length, error: (error as Error).name, code: (error as { cause?: { code?: unknown } }).cause?.code },
        'channel reply could not be sent',
      );
      return false;
    }
    if (refused) {
      context.logger.warn({ event: 'channel-reply', ...context.logFields, piece: index + 1, pieces: requests.length, status }, 'channel API refused the reply');
      return false;
    }
  }
  return true;
}
