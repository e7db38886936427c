import { createInbox, headers as natsHeaders, type Msg, type NatsConnection } from '@nats-io/nats-core';
import type { UIMessageChunk } from 'ai';
import { silentLogger } from '../../server/core/logger.js';
import { connectNats, type NatsConnectionStatus } from '../../server/nats/nats-connection.js';
import {
  authorizationHeader,
  isFinalChunk,
  natsAuthenticationOf,
  type NatsCredentialsView,
  type NatsReplayRequest,
  replayEndHeader,
  sequenceHeader,
  subjectForAgent,
} from '../../server/nats/nats-protocol.js';
import type { ApiClient } from '../api-client.js';
import { CliError } from '../cli-error.js';
import type { ChatRequest, ChatStreamSource } from './chat-stream-source.js';

export interface NatsChatSourceOptions {
  /** The account service, signed in as the account: `GET /accounts/me/nats` gives the credentials. */
  accountService: ApiClient;
  agentId: string;
  /** The account secret, sent as the `Authorization: Bearer` header of each request. */
  secret: string;
  /**
   * The NATS token, for servers that take one (`authentication: "token"`): their operator hands
   * it out, not the service. `harness chat` passes `NATS_TOKEN`.
   */
  natsToken?: string;
  /** How long the first chunk of an answer may take. Default 30 s. */
  firstChunkTimeoutMilliseconds?: number;
  /** Told each time a dropped stream is resumed by replay, with the last sequence the client had. */
  onReplay?: (afterSequence: number) => void;
}

/** A chat source over NATS WebSocket; `close()` ends its connection. */
export interface NatsChatSource extends ChatStreamSource {
  /** The open connection, if any (tests use it to force a reconnect). */
  connection(): NatsConnection | undefined;
  close(): Promise<void>;
}

type StreamEvent = { kind: 'live'; message: Msg } | { kind: 'replay'; id: number; message: Msg } | { kind: 'reconnected' } | { kind: 'closed' };

/** A small queue the generator awaits: subscription callbacks and status changes push into it. */
class EventQueue {
  private readonly items: StreamEvent[] = [];
  private waiter: ((event: StreamEvent) => void) | undefined;

  push(event: StreamEvent): void {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter(event);
    } else this.items.push(event);
  }

  next(): Promise<StreamEvent> {
    const item = this.items.shift();
    if (item) return Promise.resolve(item);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }
}

function sequenceOf(message: Msg): number | undefined {
  const value = message.headers?.get(sequenceHeader);
  return value ? Number(value) : undefined;
}

function chunkOf(message: Msg): UIMessageChunk {
  try {
    return message.json<UIMessageChunk>();
  } catch {
    throw new CliError('the agent service sent a NATS message that is not a JSON chunk');
  }
}

/**
 * `harness chat --transport nats`: connects over WebSocket the way a browser client would
 * (`wsconnect` with the `ws` package), with the account's own NATS user and inbox prefix;
 * sends each request to `harness.v1.<accountId>.<agentId>.chat` with the bearer header and
 * reads the chunks from its inbox until a final finish (after `waiting_async_tools` it keeps
 * listening for the continuation). When the connection drops and comes back, it asks the
 * replay subject for everything after the last sequence it saw, so no text is lost or
 * repeated.
 */
export function createNatsChatSource(options: NatsChatSourceOptions): NatsChatSource {
  let credentials: NatsCredentialsView | undefined;
  let connection: NatsConnection | undefined;
  const statusListeners = new Set<(status: NatsConnectionStatus) => void>();

  async function connect(): Promise<{ connection: NatsConnection; credentials: NatsCredentialsView }> {
    credentials ??= await options.accountService.send<NatsCredentialsView>('GET', '/accounts/me/nats');
    const url = credentials.websocketUrl ?? credentials.url;
    if (url === null) throw new CliError('the service did not say where its NATS server is');
    if (credentials.authentication === 'token' && !options.natsToken) {
      throw new CliError("the service's NATS servers take a token, which their operator hands out (the service does not): set NATS_TOKEN");
    }
    if (credentials.authentication === 'operator') {
      throw new CliError("the service's NATS servers take users their operator signs, which the CLI cannot use: chat with --transport http");
    }
    if (connection === undefined || connection.isClosed()) {
      try {
        connection = await connectNats({
          url,
          ...natsAuthenticationOf(credentials, options.natsToken),
          inboxPrefix: credentials.inboxPrefix,
          name: 'harness-cli',
          logger: silentLogger,
          onStatus: (status) => {
            for (const listener of statusListeners) listener(status);
          },
        });
      } catch (error) {
        throw new CliError(`cannot connect to NATS at ${url}: ${(error as Error).message}`, { cause: error });
      }
    }
    return { connection, credentials };
  }

  async function* chunks(request: ChatRequest, signal: AbortSignal | undefined): AsyncGenerator<UIMessageChunk, void, undefined> {
    const { connection: current, credentials: known } = await connect();
    const subjects = {
      chat: subjectForAgent(known.chatSubject, options.agentId),
      replay: subjectForAgent(known.replaySubject, options.agentId),
    };
    const queue = new EventQueue();
    const reply = createInbox(known.inboxPrefix);
    const live = current.subscribe(reply, { callback: (error, message) => (error ? queue.push({ kind: 'closed' }) : queue.push({ kind: 'live', message })) });
    let dropped = false;
    const onStatus = (status: NatsConnectionStatus): void => {
      if (status === 'disconnected') dropped = true;
      else if (status === 'connected' && dropped) {
        dropped = false;
        queue.push({ kind: 'reconnected' });
      } else if (status === 'closed') queue.push({ kind: 'closed' });
    };
    statusListeners.add(onStatus);
    const onAbort = (): void => queue.push({ kind: 'closed' });
    signal?.addEventListener('abort', onAbort, { once: true });
    const firstChunkTimer = setTimeout(() => queue.push({ kind: 'closed' }), options.firstChunkTimeoutMilliseconds ?? 30_000);
    let replayId = 0;
    let replaying: { id: number; unsubscribe(): void } | undefined;
    const buffered: Msg[] = [];
    let lastSequence = 0;
    let received = false;

    const send = (subject: string, replySubject: string, body: unknown): void => {
      const headers = natsHeaders();
      headers.set(authorizationHeader, `Bearer ${options.secret}`);
      current.publish(subject, JSON.stringify(body), { reply: replySubject, headers });
    };
    /** The chunk of a message, or undefined for one the client has already seen. */
    const accept = (message: Msg): UIMessageChunk | undefined => {
      const sequence = sequenceOf(message);
      if (sequence !== undefined) {
        if (sequence <= lastSequence) return undefined;
        lastSequence = sequence;
      }
      received = true;
      clearTimeout(firstChunkTimer);
      return chunkOf(message);
    };

    try {
      send(subjects.chat, reply, request);
      for (;;) {
        const event = await queue.next();
        if (event.kind === 'closed') {
          signal?.throwIfAborted();
          throw new CliError(received ? 'the NATS connection closed before the turn finished' : 'the agent service did not answer over NATS');
        }
        if (event.kind === 'reconnected') {
          // Chunks published while the connection was down are lost to it: ask for them again.
          replaying?.unsubscribe();
          replayId += 1;
          const id = replayId;
          const replySubject = `${reply}.replay${id}`;
          const subscription = current.subscribe(replySubject, { callback: (error, message) => (error ? undefined : queue.push({ kind: 'replay', id, message })) });
          replaying = { id, unsubscribe: () => subscription.unsubscribe() };
          options.onReplay?.(lastSequence);
          const replayRequest: NatsReplayRequest = { conversationKey: request.conversationKey, afterSequence: lastSequence };
          send(subjects.replay, replySubject, replayRequest);
          continue;
        }
        if (event.kind === 'live' && replaying !== undefined) {
          // Live chunks wait until the replay has filled the gap before them.
          buffered.push(event.message);
          continue;
        }
        if (event.kind === 'replay') {
          if (replaying?.id !== event.id) continue;
          if (event.message.headers?.get(replayEndHeader)) {
            replaying.unsubscribe();
            replaying = undefined;
            for (const message of buffered.splice(0)) {
              const chunk = accept(message);
              if (chunk === undefined) continue;
              yield chunk;
              if (isFinalChunk(chunk)) return;
            }
            continue;
          }
        }
        const chunk = accept(event.message);
        if (chunk === undefined) continue;
        yield chunk;
        if (isFinalChunk(chunk)) return;
      }
    } finally {
      clearTimeout(firstChunkTimer);
      signal?.removeEventListener('abort', onAbort);
      statusListeners.delete(onStatus);
      replaying?.unsubscribe();
      live.unsubscribe();
    }
  }

  return {
    open: async (request, signal) => {
      await connect();
      return chunks(request, signal);
    },
    connection: () => connection,
    async close(): Promise<void> {
      const open = connection;
      connection = undefined;
      if (open !== undefined && !open.isClosed()) await open.close();
    },
  };
}
