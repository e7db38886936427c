import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConflictError } from '../core/errors.js';
import type { HarnessCore } from '../core/composition/harness-core.js';
import type { IdempotencyClaim } from '../core/idempotency/idempotent-requests.js';
import type { IdempotentRoute, StoredAnswer, StreamedTurn } from '../core/idempotency/idempotency-record.js';
import { idempotencyKeyHeader, parseIdempotencyKey, requestFingerprint } from '../core/idempotency/request-fingerprint.js';
import { currentAccount } from './authentication.js';
import { streamFrom, waitForFirstChunk } from './routes/stream-routes.js';

/** The chat route's `x-harness-event-id` (`eventIdHeaderName` there; not imported, which would be an import cycle). */
const eventIdHeader = 'x-harness-event-id';

/** Set on an answer that is a retry's replay of the first request's answer. */
export const replayedHeader = 'idempotent-replayed';

/** The header in a route's schema: validated (400 naming it) and documented. */
export const idempotencyKeyHeaders = {
  type: 'object',
  properties: {
    'idempotency-key': {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7E]+$',
      description:
        'Makes a retry safe: a request with the same key and the same body within 24 hours gets the first answer (same status, same `eventId`) and runs nothing again; another body with the key is a 422 `idempotency_key_reused`; a retry while the first still runs waits for it, then 409 `idempotency_key_in_use`. Per account and per route.',
    },
  },
} as const;

/** What a route that honours `Idempotency-Key` uses of the core when its answers are JSON: the keys. */
export type IdempotencyParts = Pick<HarnessCore, 'idempotency'>;
/** What the chat route's keys use besides: a retry of a streamed turn gets its stream again from the chunk log. */
export type StreamedIdempotencyParts = IdempotencyParts & Pick<HarnessCore, 'chunkLog' | 'runningTurns' | 'resumeAdmission'>;

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** The key each request holds while it runs (only requests that sent one). */
const claims = new WeakMap<FastifyRequest, IdempotencyClaim>();

type StreamReplay = (request: FastifyRequest, reply: FastifyReply, stream: StreamedTurn) => Promise<void>;

/**
 * Route options that make `route` honour `Idempotency-Key`: the key is claimed after the
 * `before` preHandlers (authentication and the rate limit come first, so a refused request
 * holds nothing), a retry is answered from what the first request left, a 2xx answer is
 * recorded as it is sent, and any other answer lets go of the key. For routes that answer
 * JSON only (the chat route, which may stream, uses `idempotentStreamedRoute`).
 */
export function idempotentRoute(core: IdempotencyParts, route: Exclude<IdempotentRoute, 'chat'>, ...before: Hook[]) {
  return idempotentRouteWith(core, route, undefined, before);
}

/** `idempotentRoute` for the chat route: a retry of a turn that was streamed gets its stream again. */
export function idempotentStreamedRoute(core: StreamedIdempotencyParts, route: Extract<IdempotentRoute, 'chat'>, ...before: Hook[]) {
  return idempotentRouteWith(core, route, (request, reply, stream) => replayStream(core, request, reply, stream), before);
}

function idempotentRouteWith(core: IdempotencyParts, route: IdempotentRoute, replay: StreamReplay | undefined, before: Hook[]) {
  const claimOrReplay = async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    if (key === undefined) return undefined;
    const ref = { accountId: currentAccount(request).accountId, route, key };
    const requestHash = requestFingerprint({ method: request.method, path: request.url.split('?')[0] ?? request.url, body: request.body });
    const start = await core.idempotency.begin(ref, requestHash);
    if (start.kind === 'run') {
      claims.set(request, start.claim);
      return undefined;
    }
    if (start.kind === 'replay-answer') return sendAnswer(reply, start.answer);
    // Only the chat route records a streamed turn (`idempotentStreamStarted`).
    if (!replay) throw new Error(`the ${route} route found a streamed turn under an ${idempotencyKeyHeader}`);
    await replay(request, reply, start.stream);
    return reply;
  };
  const recordAnswer = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const claim = claims.get(request);
    if (!claim) return payload;
    claims.delete(request);
    try {
      if (reply.statusCode >= 200 && reply.statusCode < 300 && typeof payload === 'string') {
        await core.idempotency.answered(claim, answerOf(reply, payload));
      } else {
        // A 4xx changed nothing, and a 5xx (a failed model, a bug) leaves nothing worth replaying: a retry runs again.
        await core.idempotency.release(claim);
      }
    } catch (error) {
      // The answer still goes out; the key stays held until its claim runs out.
      request.log.warn({ err: error }, `recording the ${idempotencyKeyHeader} answer failed`);
    }
    return payload;
  };
  const releaseLeftover = async (request: FastifyRequest): Promise<void> => {
    const claim = claims.get(request);
    if (!claim) return;
    claims.delete(request);
    await core.idempotency.release(claim).catch((error: unknown) => request.log.warn({ err: error }, `releasing an ${idempotencyKeyHeader} failed`));
  };
  return { preHandler: [...before, claimOrReplay], onSend: recordAnswer, onResponse: releaseLeftover };
}

/**
 * The chat route streams its turn (the SSE answer is written past Fastify, so it is never
 * `onSend`): the key now stands for that turn, and a retry gets its stream from the chunk log.
 */
export async function idempotentStreamStarted(core: IdempotencyParts, request: FastifyRequest, stream: StreamedTurn): Promise<void> {
  const claim = claims.get(request);
  if (!claim) return;
  claims.delete(request);
  await core.idempotency.streamed(claim, stream);
}

function answerOf(reply: FastifyReply, body: string): StoredAnswer {
  const contentType = reply.getHeader('content-type');
  const eventId = reply.getHeader(eventIdHeader);
  return {
    statusCode: reply.statusCode,
    body,
    ...(typeof contentType === 'string' ? { contentType } : {}),
    ...(typeof eventId === 'string' ? { eventId } : {}),
  };
}

function sendAnswer(reply: FastifyReply, answer: StoredAnswer): FastifyReply {
  void reply.code(answer.statusCode).header(replayedHeader, 'true');
  if (answer.contentType) void reply.header('content-type', answer.contentType);
  if (answer.eventId) void reply.header(eventIdHeader, answer.eventId);
  return reply.send(answer.body);
}

/** The streamed turn again from its first chunk (live while it runs); a 409 naming it once the chunk log no longer holds it. */
async function replayStream(core: StreamedIdempotencyParts, request: FastifyRequest, reply: FastifyReply, stream: StreamedTurn): Promise<void> {
  const turn = { accountId: currentAccount(request).accountId, agentId: stream.agentId, conversationKey: stream.conversationKey, turnId: stream.turnId };
  const place = core.resumeAdmission.enter(turn);
  try {
    const logged = await core.chunkLog.turnState(turn);
    const point = logged ? { turn, afterIndex: -1 } : await waitForFirstChunk(core, turn);
    if (!point) {
      void reply.header(eventIdHeader, stream.eventId);
      throw new ConflictError(`The turn this ${idempotencyKeyHeader} started (eventId ${stream.eventId}) was streamed and its stream is no longer kept; read the conversation for its messages.`);
    }
    await streamFrom(request, reply, core, point, { [eventIdHeader]: stream.eventId, [replayedHeader]: 'true' });
  } finally {
    place.release();
  }
}
