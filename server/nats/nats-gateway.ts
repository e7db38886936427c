import { setTimeout as sleep } from 'node:timers/promises';
import type { Msg, NatsConnection, Subscription } from '@nats-io/nats-core';
import type { UIMessageChunk } from 'ai';
import type { AccountRecord } from '../core/accounts/account.js';
import type { DispatchGroup } from '../core/async-tools/async-tool-result.js';
import { isValidConversationKey } from '../core/conversations/conversation.js';
import { parseBearerToken } from '../core/auth/bearer-token.js';
import { InvalidRequestError, UnauthorizedError } from '../core/errors.js';
import { viewError } from '../core/errors-view.js';
import type { HarnessCore } from '../core/composition/harness-core.js';
import { takeBudget } from '../core/limits/take-budget.js';
import type { Logger } from '../core/logger.js';
import { parseChatBody } from '../core/runs/chat-body.js';
import type { ContinuationDelivery } from '../core/runs/continuation-dispatcher.js';
import { runTurnToEnd } from '../core/runs/run-turn-to-end.js';
import { transports } from '../core/transports/transports.js';
import type { StartedTurn } from '../core/turns/turn-types.js';
import type { ChunkLog } from '../core/turns/chunk-log.js';
import type { ResumePlace } from '../core/stream-resumes/resume-admission.js';
import { isAccountInbox } from './account-nats-credentials.js';
import type { NatsLink, NatsLinkState } from './nats-link.js';
import { authorizationHeader } from './nats-protocol.js';
import { chatRequestWildcard, gatewayQueueGroup, parseRequestSubject, replayRequestWildcard, type RequestSubject } from './nats-subjects.js';
import { ChunkPublisher, type ChunkStreamState } from './chunk-publisher.js';
import { createChunkRetention } from './chunk-retention.js';
import type { ChunkRetentionSettings } from './chunk-retention-settings.js';
import { JetStreamChunkLog } from './jetstream-chunk-log.js';
import { defaultReplayRetention, ensureReplayStream, replayEndHeaders, serveReplay, type ChunkTarget, type ReplayRetention } from './stream-replay.js';

/** What a NATS turn stores in its dispatch rows' delivery metadata, for the continuation. */
export interface NatsReplyTarget {
  replySubject: string;
}

/** What the gateway uses of the core: the bearer's account, the turn budget, turns, and the replay bound. */
export type NatsGatewayParts = Pick<HarnessCore, 'accounts' | 'rateLimiters' | 'turns' | 'resumeAdmission'>;

export interface NatsGatewayOptions {
  core: NatsGatewayParts;
  link: NatsLink;
  logger: Logger;
  retention?: ReplayRetention;
  /** Each account's share of the chunk stream (default: `defaultChunkRetentionSettings`, the share an eighth of `retention.maxBytes`). */
  retentionShare?: ChunkRetentionSettings;
  /** A replay answer ends after this long without a new chunk. Default 5 minutes. */
  replayIdleTimeoutMilliseconds?: number;
  /**
   * How long turns wait for the chunk stream on a new connection before they go unstored
   * (until it is ready). Default 3 s: creating it takes well under a second on a healthy
   * server, but a cluster that cannot give it 3 replicas is asked for up to 15 s.
   */
  streamWaitMilliseconds?: number;
}

/**
 * The NATS chat transport: requests on `harness.v1.<accountId>.<agentId>.chat`
 * and `.replay` (queue group `harness-gateway`), chunks on the request's reply subject, and
 * continuations after async tools on the reply subject stored with the dispatch rows.
 */
export interface NatsGateway {
  /**
   * `connected` only once the subscriptions are in place on the current connection and the
   * chunk stream is ready or given up (`streamWaitMilliseconds` at most after the subscriptions).
   */
  state(): NatsLinkState;
  /** The chunk stream as the core's chunk log: SSE turns are stored and resumed through it. */
  chunkLog: ChunkLog;
  /** The `nats` continuation delivery: a continuation streams to the reply subject stored with its group. */
  continuationDelivery: ContinuationDelivery;
  /** Resolves once nothing waits to be published (tests, shutdown). */
  idle(): Promise<void>;
  /** Stops taking requests, ends open replays, and waits for queued chunks (bounded). */
  close(): Promise<void>;
}

const closeWaitMilliseconds = 5_000;
const defaultStreamWaitMilliseconds = 3_000;
/** How often a replay that failed before sending anything is tried. */
const replayAttempts = 3;

function bearerOf(message: Msg): string | undefined {
  return parseBearerToken(message.headers?.get(authorizationHeader));
}

function jsonBody(message: Msg): unknown {
  try {
    return message.json();
  } catch {
    throw new InvalidRequestError('the request body must be JSON');
  }
}

function parseReplayBody(body: unknown): { conversationKey: string; turnId?: string; afterSequence: number } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidRequestError('body must be {conversationKey, turnId?, afterSequence}');
  const { conversationKey, turnId, afterSequence } = body as Record<string, unknown>;
  if (typeof conversationKey !== 'string' || !isValidConversationKey(conversationKey)) throw new InvalidRequestError('conversationKey must be a string of 1-256 characters without control characters');
  if (turnId !== undefined && (typeof turnId !== 'string' || !/^[A-Za-z0-9_-]{1,100}$/.test(turnId))) throw new InvalidRequestError('turnId must be a turn id such as turn_<uuid>');
  const after = afterSequence ?? 0;
  if (typeof after !== 'number' || !Number.isSafeInteger(after) || after < 0) throw new InvalidRequestError('afterSequence must be a whole number >= 0');
  return { conversationKey, ...(turnId === undefined ? {} : { turnId }), afterSequence: after };
}

export function createNatsGateway(options: NatsGatewayOptions): NatsGateway {
  const { core, link, logger } = options;
  const log = (level: 'info' | 'warn' | 'error' | 'debug', fields: Record<string, unknown>, message: string): void => logger[level]({ component: 'nats-gateway', ...fields }, message);
  let readyOn: NatsConnection | undefined;
  let closed = false;
  const subscriptions: Subscription[] = [];
  const replays = new Set<AbortController>();
  const running = new Set<Promise<void>>();
  /** The chunk stream on the connection it is prepared for; `settled` once it is ready or given up. */
  let stream: { connection: NatsConnection; state: ChunkStreamState; settled: Promise<void> } | undefined;
  const retention = options.retention ?? defaultReplayRetention;
  const shared = createChunkRetention({ retention, ...(options.retentionShare === undefined ? {} : { settings: options.retentionShare }), connection: () => link.current(), logger });
  const publisher = new ChunkPublisher({
    connection: () => link.current(),
    ready: () => readyOn !== undefined && readyOn === link.current(),
    streamState: () => (stream !== undefined && stream.connection === link.current() ? stream.state : 'unavailable'),
    logger,
    // A store of several chunks must fit in one stream message.
    maxStoreBytes: Math.min(64 * 1024, retention.maxMessageBytes),
    stored: (store) => shared.stored(store),
  });

  function track(work: Promise<void>): void {
    running.add(work);
    void work.finally(() => running.delete(work));
  }

  function refuse(replySubject: string, error: unknown): void {
    const { code, message, details, retryAfterSeconds } = viewError(error);
    publisher.publishUnstored(replySubject, { type: 'error', errorText: message });
    publisher.publishUnstored(replySubject, { type: 'finish', messageMetadata: { status: 'failed', error: { ...details, code, message, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) } } });
  }

  /** The account of the bearer, which must be the account named in the subject. */
  async function authenticate(message: Msg, subject: RequestSubject): Promise<AccountRecord> {
    const account = await core.accounts.authenticate(bearerOf(message));
    if (account.accountId !== subject.accountId) throw new UnauthorizedError('The bearer secret does not belong to the account named in the subject.');
    return account;
  }

  /** Publishes each chunk of a turn to a reply subject (stored for replay under the turn's id). */
  function publishTo(target: ChunkTarget): (chunk: UIMessageChunk) => void {
    return (chunk) => publisher.publish(target, chunk);
  }

  async function handleChat(message: Msg, subject: RequestSubject, replySubject: string): Promise<void> {
    let turn: StartedTurn;
    let conversationKey: string;
    try {
      await authenticate(message, subject);
      // The same per-account budget as POST /chat and /async: NATS is not a way around it.
      await takeBudget(core.rateLimiters.turns, subject.accountId, 'turns');
      const parsed = parseChatBody(jsonBody(message));
      conversationKey = parsed.conversationKey;
      const replyTarget: NatsReplyTarget = { replySubject };
      turn = await core.turns.start({
        accountId: subject.accountId,
        agentId: subject.agentId,
        conversationKey,
        input: parsed.input,
        ...(parsed.overrides ? { overrides: parsed.overrides } : {}),
        ...(parsed.busy ? { busy: parsed.busy } : {}),
        transport: 'nats',
        approvalPolicy: transports.nats.approvals.policy,
        replyTarget: { ...replyTarget },
      });
    } catch (error) {
      if (viewError(error).unexpected) log('error', { subject: message.subject, error: (error as Error).message }, 'a NATS chat request failed');
      refuse(replySubject, error);
      return;
    }
    log('debug', { accountId: subject.accountId, agentId: subject.agentId, turnId: turn.turnId }, 'NATS turn started');
    await runTurnToEnd(turn, publishTo({ replySubject, accountId: subject.accountId, agentId: subject.agentId, conversationKey, turnId: turn.turnId }));
  }

  async function handleReplay(message: Msg, subject: RequestSubject, replySubject: string): Promise<void> {
    const connection = link.current();
    if (connection === undefined) return;
    let body: ReturnType<typeof parseReplayBody>;
    let place: ResumePlace;
    try {
      await authenticate(message, subject);
      body = parseReplayBody(jsonBody(message));
      // Each open replay holds a JetStream consumer: bounded per account and per turn, like SSE resumes (rate_limited past it).
      place = core.resumeAdmission.enter({ accountId: subject.accountId, agentId: subject.agentId, conversationKey: body.conversationKey, ...(body.turnId === undefined ? {} : { turnId: body.turnId }) });
    } catch (error) {
      refuse(replySubject, error);
      connection.publish(replySubject, '', { headers: replayEndHeaders(0) });
      return;
    }
    // A replay right after a new connection waits for the stream, as turns do (a missing one is answered as such).
    if (stream?.connection === connection && stream.state === 'preparing') {
      await Promise.race([stream.settled, sleep(options.streamWaitMilliseconds ?? defaultStreamWaitMilliseconds, undefined, { ref: false })]);
    }
    const abort = new AbortController();
    replays.add(abort);
    let sent = 0;
    const serve = () =>
      serveReplay({
        connection,
        request: { accountId: subject.accountId, agentId: subject.agentId, ...body },
        send: (data, headers) => {
          sent += 1;
          connection.publish(replySubject, data, { headers });
        },
        idleTimeoutMilliseconds: options.replayIdleTimeoutMilliseconds ?? 5 * 60 * 1000,
        signal: abort.signal,
      });
    try {
      for (let attempt = 1; ; attempt += 1) {
        try {
          await serve();
          break;
        } catch (error) {
          // Right after a NATS server is lost, JetStream may time out while its leaders move;
          // a replay that has sent nothing yet is simply asked again.
          if (sent > 0 || attempt >= replayAttempts || abort.signal.aborted) throw error;
          log('info', { accountId: subject.accountId, attempt, error: (error as Error).message }, 'a replay failed before sending anything; trying again');
        }
      }
    } catch (error) {
      log('warn', { accountId: subject.accountId, error: (error as Error).message }, 'a replay failed');
      refuse(replySubject, error);
      connection.publish(replySubject, '', { headers: replayEndHeaders(body.afterSequence) });
    } finally {
      replays.delete(abort);
      place.release();
    }
  }

  function handle(message: Msg): void {
    const subject = parseRequestSubject(message.subject);
    const replySubject = message.reply;
    if (subject === undefined || replySubject === undefined || replySubject === '') {
      log('warn', { subject: message.subject }, 'dropped a NATS request without a valid subject or reply subject');
      return;
    }
    // The server lets a client name any reply subject; answering outside the account's own
    // inbox would let account A steer the service's chunks into account B's inbox.
    if (!isAccountInbox(subject.accountId, replySubject)) {
      log('warn', { accountId: subject.accountId, replySubject }, 'dropped a NATS request whose reply subject is outside the account inbox');
      return;
    }
    const work = subject.kind === 'chat' ? handleChat(message, subject, replySubject) : handleReplay(message, subject, replySubject);
    track(work.catch((error: unknown) => log('error', { subject: message.subject, error: (error as Error).message }, 'a NATS request failed')));
  }

  /**
   * Creates (or updates) the chunk stream on a new connection, in the background: requests are
   * answered meanwhile. Turns that start while it is being prepared wait for it (their first
   * chunk waits for its store anyway), for `streamWaitMilliseconds` at most; after that, or when
   * the server has no JetStream, turns go to the client unstored until it is ready.
   */
  function prepareStream(connection: NatsConnection): void {
    const entry: NonNullable<typeof stream> = { connection, state: 'preparing', settled: Promise.resolve() };
    stream = entry;
    const patience = setTimeout(() => {
      if (entry.state !== 'preparing') return;
      entry.state = 'unavailable';
      log('warn', {}, 'the replay stream is not ready yet; chunks go unstored until it is');
      publisher.resume();
    }, options.streamWaitMilliseconds ?? defaultStreamWaitMilliseconds);
    patience.unref();
    entry.settled = ensureReplayStream(connection, retention).then(
      (replicas) => {
        entry.state = 'ready';
        log('info', { replicas }, 'the replay stream is ready');
      },
      (error: unknown) => {
        entry.state = 'unavailable';
        // Without JetStream (an outside server that lacks it) the gateway still answers; only replay is lost.
        if (!closed) log('warn', { error: (error as Error).message }, 'could not create the replay stream; chunks are sent without replay');
      },
    );
    void entry.settled.finally(() => {
      clearTimeout(patience);
      publisher.resume();
    });
  }

  async function subscribe(connection: NatsConnection): Promise<void> {
    if (closed) return;
    prepareStream(connection);
    for (const wildcard of [chatRequestWildcard, replayRequestWildcard]) {
      subscriptions.push(connection.subscribe(wildcard, { queue: gatewayQueueGroup, callback: (error, message) => (error ? log('warn', { error: error.message }, 'gateway subscription error') : handle(message)) }));
    }
    // The server has the subscriptions once a flush returns: only then is the gateway ready.
    await connection.flush();
    readyOn = connection;
    log('info', {}, 'NATS gateway subscribed');
    publisher.resume();
  }

  /** The reply subject a NATS turn stored with its dispatch group, when it is still one of the account's inboxes. */
  function continuationSubject(group: DispatchGroup): string | undefined {
    const replySubject = (group.delivery.replyTarget as Partial<NatsReplyTarget> | undefined)?.replySubject;
    return typeof replySubject === 'string' && isAccountInbox(group.accountId, replySubject) ? replySubject : undefined;
  }

  // A continuation (run by the core's background worker) streams to the subject stored with its group.
  const continuationDelivery: ContinuationDelivery = {
    stream: (group, turnId) => {
      const replySubject = continuationSubject(group);
      if (replySubject === undefined) {
        log('warn', { groupId: group.groupId }, 'a NATS continuation has no usable reply subject; it runs without a listener');
        return undefined;
      }
      return publishTo({ replySubject, accountId: group.accountId, agentId: group.agentId, conversationKey: group.conversationKey, turnId });
    },
    failedToStart: async (group, error) => {
      log('error', { groupId: group.groupId, error: (error as Error).message }, 'a NATS continuation failed to start');
      const replySubject = continuationSubject(group);
      if (replySubject !== undefined) refuse(replySubject, error);
    },
  };
  const stopConnected = link.onConnected((connection) =>
    subscribe(connection).catch((error: unknown) => log('error', { error: (error as Error).message }, 'the NATS gateway could not subscribe; it tries again on the next connection')),
  );
  const stopStateChange = link.onStateChange((state) => {
    if (state === 'connected') publisher.resume();
  });

  return {
    chunkLog: new JetStreamChunkLog({ publisher, connection: () => link.current() }),
    continuationDelivery,
    state(): NatsLinkState {
      const linkState = link.state();
      if (linkState !== 'connected') return linkState;
      const current = link.current();
      if (current === undefined || current !== readyOn) return 'disconnected';
      // Requests are answered already; `connected` waits for the chunk stream too (ready, or given
      // up: 3 s at most), so a client that saw it finds the stream there on a healthy server.
      return stream?.connection === current && stream.state === 'preparing' ? 'disconnected' : 'connected';
    },
    idle: async () => {
      while (running.size > 0) await Promise.allSettled([...running]);
      await publisher.idle();
      await shared.idle();
    },
    async close(): Promise<void> {
      closed = true;
      stopConnected();
      for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
      for (const abort of replays) abort.abort();
      // Turns that are running still finish into the conversation; their chunks get a
      // bounded chance to reach NATS before the link is drained.
      const settled = (async () => {
        while (running.size > 0) await Promise.allSettled([...running]);
        await publisher.idle();
      })();
      await Promise.race([settled, sleep(closeWaitMilliseconds, undefined, { ref: false })]);
      stopStateChange();
      readyOn = undefined;
    },
  };
}
