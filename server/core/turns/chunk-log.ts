import type { UIMessageChunk } from 'ai';

/** The conversation a turn belongs to: where its chunks are logged. */
export interface ConversationAddress {
  accountId: string;
  agentId: string;
  conversationKey: string;
}

/** One turn (or continuation) of a conversation. */
export interface TurnAddress extends ConversationAddress {
  turnId: string;
}

/** A logged chunk: the turn it belongs to and its position in that turn (0 for the first). */
export interface LoggedChunk {
  turnId: string;
  index: number;
  chunk: UIMessageChunk;
}

/** What the log knows of one turn. */
export interface LoggedTurnState {
  turnId: string;
  /** The position of the turn's last logged chunk. */
  lastIndex: number;
  /** The turn's `finish` chunk is logged: nothing more will come. */
  finished: boolean;
}

export interface ReadTurnOptions {
  /** Ends the reading (the client went away). */
  signal?: AbortSignal;
  /** A turn that logs nothing for this long ends the reading (its process stopped mid-turn). Default 5 minutes. */
  idleTimeoutMilliseconds?: number;
}

/**
 * The chunks of every streamed turn, kept for a while so a client that lost its connection can
 * pick up where it stopped: the SSE stream route and the NATS replay both read it. Where NATS is
 * configured it is the JetStream chunk stream (shared by every replica); otherwise an in-memory
 * log of this process.
 */
export interface ChunkLog {
  /**
   * Logs the next chunk of a turn, in the order the turn produced it, and returns its position.
   * Never waits and never throws: a chunk that cannot be logged is only missing from resumes.
   */
  append(turn: TurnAddress, chunk: UIMessageChunk): number;
  /** What the log holds of a turn; undefined when it holds nothing of it. */
  turnState(turn: TurnAddress): Promise<LoggedTurnState | undefined>;
  /** The conversation's latest turn in the log; undefined when the log holds none. */
  latestTurn(conversation: ConversationAddress): Promise<LoggedTurnState | undefined>;
  /**
   * The turn's chunks after position `afterIndex` (-1 for all of them), then the ones it logs
   * from now on, ending with its `finish` chunk.
   */
  readTurn(turn: TurnAddress, afterIndex: number, options?: ReadTurnOptions): AsyncIterable<LoggedChunk>;
}

/**
 * The SSE event id of a chunk: `<turnId>:<position>`. It names the turn and the chunk's place in
 * it, and increases through the turn; clients treat it as opaque and send it back as
 * `Last-Event-ID`.
 */
export function chunkEventId(turnId: string, index: number): string {
  return `${turnId}:${index}`;
}

/** Reads an event id made by `chunkEventId`; undefined for anything else. */
export function parseChunkEventId(eventId: string): { turnId: string; index: number } | undefined {
  const match = /^([A-Za-z0-9_-]{1,100}):(\d{1,7})$/.exec(eventId.trim());
  if (match === null) return undefined;
  return { turnId: match[1]!, index: Number(match[2]) };
}
