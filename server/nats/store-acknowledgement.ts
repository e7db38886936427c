import type { Msg } from '@nats-io/nats-core';

/** What JetStream answered to one store: the stream sequence it got, or why it was refused. */
export type StoreOutcome = { sequence: number } | { error: string };

const sequencePattern = /"seq":(\d+)/;

/** Reads a store's acknowledgement (a JetStream publish answer). */
export function storeOutcomeOf(message: Msg): StoreOutcome {
  if (message.headers?.hasError) return { error: `${message.headers.code} ${message.headers.description}` };
  const text = message.string();
  // The common answer, read without a JSON parse: {"stream":"HARNESS_CHUNKS","seq":42} (maybe with "duplicate":true).
  const sequence = text.includes('"error"') ? null : sequencePattern.exec(text);
  if (sequence !== null) return { sequence: Number(sequence[1]) };
  try {
    const answer = JSON.parse(text) as { seq?: number; error?: { description?: string } };
    if (typeof answer.seq === 'number') return { sequence: answer.seq };
    return { error: answer.error?.description ?? 'no sequence in the store acknowledgement' };
  } catch {
    return { error: 'the store acknowledgement is not JSON' };
  }
}
