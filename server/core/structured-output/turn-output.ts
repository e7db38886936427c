import type { UIMessageChunk } from 'ai';
import type { ConversationState } from '../conversations/conversation.js';
import type { StructuredOutput } from './structured-output.js';

/** The stream part that carries a turn's structured output, once, before `finish`. */
export const outputPartType = 'data-output';

/** `{type: 'data-output', data: <value>}`: what `useChat` sees as a data part named `output`. */
export function outputChunk(value: unknown): UIMessageChunk {
  return { type: outputPartType, data: value } as UIMessageChunk;
}

/** What settling a turn's output writes to: the turn's outcome (`output` or `failure`) and its conversation. */
export interface OutputOutcome {
  state: ConversationState;
  /** The index of the turn's first message in `state.messages`. */
  firstNewMessage: number;
  output?: { value: unknown };
  failure?: { kind: string; message: string };
}

/**
 * The turn's last pass ended it: its final text must hold the structured value. A valid value
 * goes on the outcome (for the result, the status row and the stream) and on the turn's last
 * assistant message (so the stored conversation shows it); an invalid one fails the turn,
 * with a reason that names the schema's paths, never the value, and an `error` part on the
 * stream.
 */
export function settleTurnOutput(output: StructuredOutput, finalText: string | undefined, outcome: OutputOutcome, write: (chunk: UIMessageChunk) => void): void {
  const result = output.resultOf(finalText ?? '');
  if (!result.valid) {
    outcome.failure = { kind: 'output', message: `The turn's structured output is invalid: ${result.reason}.` };
    write({ type: 'error', errorText: outcome.failure.message });
    return;
  }
  outcome.output = { value: result.value };
  const messages = outcome.state.messages;
  for (let index = messages.length - 1; index >= outcome.firstNewMessage; index -= 1) {
    const stored = messages[index]!;
    if (stored.message.role !== 'assistant') continue;
    stored.output = result.value;
    return;
  }
}
