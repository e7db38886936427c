import { setTimeout as delay } from 'node:timers/promises';
import { urlForLog } from './dispatch-payload.js';

/** The body POSTed to `/async-tools/{resultId}/complete`: the tool's result, or why it failed. */
export type CompletionBody =
  | { status: 'completed'; response: Record<string, unknown> }
  | { status: 'failed'; error: string };

/**
 * One POST to a completion URL and what came of it. `outcome`: `delivered` (2xx),
 * `retrying` (network error or 5xx, another try follows), `gave-up` (the last try failed
 * that way), `already-settled` (409), `rejected` (another 4xx), `cancelled` (the worker
 * closed first).
 */
export interface CompletionAttempt {
  resultId: string;
  completeUrl: string;
  /** 1 for the first try. */
  attempt: number;
  /** Which body was sent. */
  sent: CompletionBody['status'];
  httpStatus?: number;
  /** The network error, or the start of the error reply. */
  error?: string;
  outcome: 'delivered' | 'retrying' | 'gave-up' | 'already-settled' | 'rejected' | 'cancelled';
  at: string;
}

export interface SendCompletionOptions {
  resultId: string;
  completeUrl: string;
  headers: Record<string, string>;
  body: CompletionBody;
  /** Waits before the 2nd, 3rd... try; its length is the number of retries. */
  retryDelaysMs: readonly number[];
  fetch: typeof fetch;
  signal: AbortSignal;
  record(attempt: CompletionAttempt): void;
  log(line: string): void;
}

/** Per-try limit, so a completion endpoint that never answers does not hold a try forever. */
const attemptTimeoutMs = 10_000;

/** Wait `ms`, or less when `signal` aborts; resolves either way. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch(() => undefined);
}

/** The `continuation` field of a completion reply, for the log line. */
function continuationOf(text: string): string | undefined {
  try {
    const value = (JSON.parse(text) as { continuation?: unknown } | null)?.continuation;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function describeFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * POSTs a completion, retrying a network error or a 5xx with the given delays. A 4xx is
 * never retried: 409 means the row is already settled (another completion won, which is
 * fine), any other 4xx is the request's own fault and would fail the same way again.
 * Log lines name the URL and the status, never a header value (the bearer secret).
 */
export async function sendCompletion(options: SendCompletionOptions): Promise<CompletionAttempt['outcome']> {
  const { resultId, body, signal } = options;
  const where = urlForLog(options.completeUrl);
  const tries = options.retryDelaysMs.length + 1;
  for (let attempt = 1; attempt <= tries; attempt += 1) {
    const base = { resultId, completeUrl: options.completeUrl, attempt, sent: body.status };
    const record = (fields: Pick<CompletionAttempt, 'outcome' | 'httpStatus' | 'error'>): CompletionAttempt['outcome'] => {
      options.record({ ...base, ...fields, at: new Date().toISOString() });
      return fields.outcome;
    };
    if (signal.aborted) return record({ outcome: 'cancelled' });
    const last = attempt === tries;
    let reply: Response;
    try {
      reply = await options.fetch(options.completeUrl, {
        method: 'POST',
        headers: { ...options.headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.any([signal, AbortSignal.timeout(attemptTimeoutMs)]),
      });
    } catch (error) {
      if (signal.aborted) return record({ outcome: 'cancelled' });
      const reason = describeFailure(error);
      options.log(`${resultId}: POST ${where} failed (${reason})${last ? `; giving up after ${tries} tries` : '; will retry'}`);
      record({ outcome: last ? 'gave-up' : 'retrying', error: reason });
      if (last) return 'gave-up';
      await sleep(options.retryDelaysMs[attempt - 1] ?? 0, signal);
      continue;
    }
    const text = await reply.text().catch(() => '');
    const excerpt = text.trim().slice(0, 200);
    if (reply.ok) {
      const continuation = continuationOf(text);
      options.log(`${resultId}: ${body.status} at ${where} -> HTTP ${reply.status}${continuation ? ` (${continuation})` : ''}`);
      return record({ outcome: 'delivered', httpStatus: reply.status });
    }
    if (reply.status === 409) {
      options.log(`${resultId}: already settled (HTTP 409 from ${where}); nothing more to do`);
      return record({ outcome: 'already-settled', httpStatus: 409, error: excerpt });
    }
    if (reply.status < 500) {
      options.log(`${resultId}: completion refused with HTTP ${reply.status} by ${where}: ${excerpt}; not retrying`);
      return record({ outcome: 'rejected', httpStatus: reply.status, error: excerpt });
    }
    options.log(`${resultId}: HTTP ${reply.status} from ${where}${last ? `; giving up after ${tries} tries` : '; will retry'}`);
    record({ outcome: last ? 'gave-up' : 'retrying', httpStatus: reply.status, error: excerpt });
    if (last) return 'gave-up';
    await sleep(options.retryDelaysMs[attempt - 1] ?? 0, signal);
  }
  return 'gave-up';
}
