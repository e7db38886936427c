import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isValidConversationKey } from '../../core/conversations/conversation.js';
import { InvalidRequestError } from '../../core/errors.js';
import type { HarnessCore } from '../../core/composition/harness-core.js';
import { chunkEventId, parseChunkEventId, type LoggedTurnState, type TurnAddress } from '../../core/turns/chunk-log.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { errorResponses } from '../openapi/error-responses.js';
import { agentIdParams } from '../schemas.js';
import { UiMessageSseWriter } from '../ui-message-sse.js';

interface StreamParams {
  agentId: string;
  conversationKey: string;
}

const streamParams = {
  ...agentIdParams,
  required: ['agentId', 'conversationKey'],
  properties: { ...agentIdParams.properties, conversationKey: { type: 'string' } },
} as const;

const streamHeaders = {
  type: 'object',
  properties: {
    'last-event-id': { type: 'string', description: 'The `id:` of the last chunk the client has (`<turnId>:<position>`): the answer starts after it.' },
  },
} as const;

const streamResponses = {
  200: {
    description: 'The rest of the turn as the AI SDK UI message stream (the same `id:` and `data:` lines as the chat route), ending with its `finish` chunk and `data: [DONE]`.',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  },
  204: { description: 'Nothing to send: no turn is running (without `Last-Event-ID`), or the client already has all of its turn, or the turn is no longer kept.', type: 'null' },
  ...errorResponses(400, 404, 429),
} as const;

/** What a resume sends: the turn and the position after which it starts (`first-chunk`: once the running turn logs one); undefined for a 204. */
async function resumePoint(core: Pick<HarnessCore, 'chunkLog' | 'runningTurns'>, address: Omit<TurnAddress, 'turnId'>, lastEventId: string | undefined): Promise<{ turn: TurnAddress; afterIndex: number | 'first-chunk' } | undefined> {
  if (lastEventId === undefined || lastEventId.trim() === '') {
    // Without an id the client has nothing of the running turn; a finished one is not sent again
    // (the AI SDK asks this way on every page load, and would append it twice).
    const latest = await core.chunkLog.latestTurn(address);
    if (latest !== undefined && !latest.finished) return { turn: { ...address, turnId: latest.turnId }, afterIndex: -1 };
    // A turn that runs but has not said anything yet (a slow model) is not in the log: wait for its first chunk.
    const running = await core.runningTurns.findRunning(address);
    return running === undefined ? undefined : { turn: { ...address, turnId: running.turnId }, afterIndex: 'first-chunk' };
  }
  const position = parseChunkEventId(lastEventId);
  if (position === undefined) throw new InvalidRequestError('Last-Event-ID must be the id of a chunk of this stream (<turnId>:<position>).');
  const turn = { ...address, turnId: position.turnId };
  const state: LoggedTurnState | undefined = await core.chunkLog.turnState(turn);
  if (state === undefined || (state.finished && state.lastIndex <= position.index)) return undefined;
  return { turn, afterIndex: position.index };
}

const firstChunkWaitMilliseconds = 60_000;
const firstChunkPollMilliseconds = 100;

/** The running turn from its first chunk, once it is logged; undefined when the turn ends (or the wait runs out) first. */
export async function waitForFirstChunk(core: Pick<HarnessCore, 'chunkLog' | 'runningTurns'>, turn: TurnAddress): Promise<{ turn: TurnAddress; afterIndex: number } | undefined> {
  const deadline = Date.now() + firstChunkWaitMilliseconds;
  while (Date.now() < deadline) {
    if ((await core.chunkLog.turnState(turn)) !== undefined) return { turn, afterIndex: -1 };
    if ((await core.runningTurns.findRunning({ accountId: turn.accountId, agentId: turn.agentId, conversationKey: turn.conversationKey })) === undefined) return undefined;
    await sleep(firstChunkPollMilliseconds);
  }
  return undefined;
}

/** Sends the turn from the chunk log after `afterIndex`, live until its end, then ends the SSE answer (`headers`: more response headers). */
export async function streamFrom(request: FastifyRequest, reply: FastifyReply, core: Pick<HarnessCore, 'chunkLog'>, point: { turn: TurnAddress; afterIndex: number }, headers: Record<string, string> = {}): Promise<void> {
  reply.hijack();
  const abort = new AbortController();
  reply.raw.on('close', () => abort.abort());
  const writer = new UiMessageSseWriter(reply.raw, headers);
  try {
    for await (const logged of core.chunkLog.readTurn(point.turn, point.afterIndex, { signal: abort.signal })) {
      writer.send(logged.chunk, chunkEventId(logged.turnId, logged.index));
    }
  } catch (error) {
    // The headers are out: the client sees the stream end without its finish, and may ask again.
    request.log.warn({ err: error, turnId: point.turn.turnId }, 'reading the chunk log failed during a resume');
  }
  writer.end();
}

/** What the stream resume routes use of the core: the chunk log and the turns running now. */
export type StreamRouteParts = Pick<HarnessCore, 'accounts' | 'agents' | 'chunkLog' | 'runningTurns' | 'resumeAdmission'>;

/**
 * `GET /agents/{agentId}/conversations/{conversationKey}/stream`, and the same at
 * `/agents/{agentId}/chat/{conversationKey}/stream`, the URL the AI SDK's
 * `DefaultChatTransport` reconnects to when its `api` is the chat route. A dropped SSE
 * connection never stops a turn; this sends what the client missed, from the chunk log.
 */
export function registerStreamRoutes(app: FastifyInstance, core: StreamRouteParts): void {
  const handler = async (request: FastifyRequest<{ Params: StreamParams }>, reply: FastifyReply): Promise<void> => {
    const account = currentAccount(request);
    const { agentId, conversationKey } = request.params;
    await core.agents.load(account.accountId, agentId);
    if (!isValidConversationKey(conversationKey)) throw new InvalidRequestError('conversationKey must be 1-256 characters without control characters.');
    const header = request.headers['last-event-id'];
    const found = await resumePoint(core, { accountId: account.accountId, agentId, conversationKey }, Array.isArray(header) ? header.at(-1) : header);
    if (found === undefined) {
      await reply.status(204).send();
      return;
    }
    // Each open resume holds a reader on the chunk log: bounded per account and per turn (429 past it).
    const place = core.resumeAdmission.enter(found.turn);
    try {
      const point = found.afterIndex === 'first-chunk' ? await waitForFirstChunk(core, found.turn) : { turn: found.turn, afterIndex: found.afterIndex };
      if (point === undefined) {
        await reply.status(204).send();
        return;
      }
      await streamFrom(request, reply, core, point);
    } finally {
      place.release();
    }
  };
  const schema = (path: string) => ({
    summary: path === 'conversation' ? 'Resume a turn\'s stream' : 'Resume a turn\'s stream (AI SDK reconnect URL)',
    description:
      path === 'conversation'
        ? 'With `Last-Event-ID`, the chunks of that turn after it (live while it runs), then its end; without, the whole turn that is running. 204 when nothing is running and nothing is left to send.'
        : 'The same as `GET /agents/{agentId}/conversations/{conversationKey}/stream`, at the URL `DefaultChatTransport.reconnectToStream` builds from `api: <agent url>/agents/{agentId}/chat` (`useChat({resume: true})`).',
    tags: ['chat'],
    params: streamParams,
    headers: streamHeaders,
    response: streamResponses,
  });
  requireAccount(app, core, (scope) => {
    scope.get<{ Params: StreamParams }>('/agents/:agentId/conversations/:conversationKey/stream', { schema: schema('conversation') }, handler);
    scope.get<{ Params: StreamParams }>('/agents/:agentId/chat/:conversationKey/stream', { schema: schema('chat') }, handler);
  });
}
