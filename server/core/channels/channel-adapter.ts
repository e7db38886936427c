import type { z } from 'zod';

/**
 * One webhook request as the HTTP layer received it. The core never sees Fastify: the
 * HTTP layer copies headers (names lower-cased), the raw body bytes (signatures are over
 * the exact bytes, so the body must not be re-serialized), the query and the clock.
 */
export interface InboundWebhook {
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  /** The body exactly as received. */
  rawBody: Buffer;
  query: Record<string, string | undefined>;
  /** The current time; injected so timestamp windows are testable. */
  now: Date;
}

export type VerificationResult = { ok: true } | { ok: false; reason: string };

/** A JSON value, so reply targets can be stored with a turn and used later. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * What a reply needs to reach the right place (chat id, issue, channel and thread,
 * interaction token...). JSON-serializable: the service may store it with the turn.
 */
export type ReplyTarget = { [key: string]: JsonValue };

export type InboundEvent =
  | {
      kind: 'message';
      /** The provider's id for this delivery; a retry carries the same id. */
      deliveryId: string;
      /** The chat or thread; the service's conversation key is `<provider>:<conversationId>`. */
      conversationId: string;
      text: string;
      /** The provider's stable id (or login) of the person who wrote the message. */
      sender: string;
      replyTarget: ReplyTarget;
    }
  | { kind: 'ignored'; reason: string }
  | {
      kind: 'immediate';
      /** Answer the webhook with this status and JSON body... */
      status: number;
      body: unknown;
      /** ...and then process this event in the background (Discord's deferred reply). */
      then?: InboundEvent;
    };

/** One HTTP call to the provider's API; `body` is sent as JSON. */
export interface OutboundRequest {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * A channel provider: verification, parsing and reply building, all pure (no I/O), so
 * the HTTP layer, the async worker and the tests drive the same code.
 */
export interface ChannelAdapter<Config = unknown, Target extends ReplyTarget = ReplyTarget> {
  /** The webhook path segment: `/webhooks/{accountId}/{agentId}/{provider}`. */
  provider: string;
  /** `config.channels.<provider>`; secret fields are required. */
  configSchema: z.ZodType<Config>;
  /** Validates a stored reply target before it is used. */
  replyTargetSchema: z.ZodType<Target>;
  /** Checks the request came from the provider; constant-time, on the raw body. */
  verify(request: InboundWebhook, config: Config): VerificationResult;
  /** Turns a verified request into an event. Never throws on a malformed payload. */
  parse(request: InboundWebhook, config: Config): InboundEvent;
  /** Most characters (UTF-16 code units) one message may carry. */
  replyLimit: number;
  /** The API calls that post `text`, split into messages of at most `replyLimit`. */
  buildReplyRequests(config: Config, target: Target, text: string): OutboundRequest[];
}
