/** The routes that take an `Idempotency-Key`. Keys are per account and per route: the same key on two routes is two entries. */
export type IdempotentRoute = 'chat' | 'async' | 'cron-job-create' | 'async-tool-complete';

/** One key of one account on one route. */
export interface IdempotencyRef {
  accountId: string;
  route: IdempotentRoute;
  key: string;
}

/** The answer the first request got, replayed byte for byte to every retry. */
export interface StoredAnswer {
  statusCode: number;
  /** The body as it was sent (serialized JSON). */
  body: string;
  contentType?: string;
  /** The `x-harness-event-id` header, when the answer had one. */
  eventId?: string;
}

/** A streamed turn: where its chunks are in the chunk log, so a retry can be sent the same stream. */
export interface StreamedTurn {
  agentId: string;
  conversationKey: string;
  turnId: string;
  eventId: string;
}

interface RecordBase {
  /** sha256 of the request's canonical form (method, path, body): a retry must match it. */
  requestHash: string;
  createdAt: string;
}

/** A key one request holds while it runs; another request may take it over once `claimUntil` has passed (its holder died). */
export interface ClaimedRecord extends RecordBase {
  state: 'claimed';
  claimId: string;
  claimUntil: string;
}

/** A finished request and its answer, kept until `expiresAt`. */
export interface AnsweredRecord extends RecordBase {
  state: 'answered';
  answer: StoredAnswer;
  expiresAt: string;
}

/** A chat turn whose stream began: its retries get that stream (live while it runs), until `expiresAt`. */
export interface StreamedRecord extends RecordBase {
  state: 'streamed';
  stream: StreamedTurn;
  expiresAt: string;
}

/** A row of `tables.idempotencyKeys`. */
export type IdempotencyRecord = ClaimedRecord | AnsweredRecord | StreamedRecord;

/** Whether a row still counts: an expired answer or an abandoned claim is treated as absent (and deleted by the sweep). */
export function isLive(record: IdempotencyRecord, now: Date): boolean {
  const until = record.state === 'claimed' ? record.claimUntil : record.expiresAt;
  return Date.parse(until) > now.getTime();
}
