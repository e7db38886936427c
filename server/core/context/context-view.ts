import type { ModelMessage } from 'ai';
import { isCompactionMarker, type StoredMessage } from '../conversations/conversation.js';

/** What of a stored conversation is sent: the latest summary, then every message after what it covers. */
export interface ContextView {
  /** The latest summary marker, when the conversation was compacted. */
  summary?: StoredMessage;
  /** The conversation's messages after the summary, in order (markers left out). */
  messages: ModelMessage[];
  /** Each of `messages`' index in the stored conversation. */
  indexes: number[];
}

/** The view of `stored` the model gets before any pruning: summary + what followed it. */
export function contextView(stored: readonly StoredMessage[]): ContextView {
  let summary: StoredMessage | undefined;
  for (let index = stored.length - 1; index >= 0; index -= 1) {
    if (isCompactionMarker(stored[index]!)) {
      summary = stored[index];
      break;
    }
  }
  const start = summary?.compaction?.summarizedThrough ?? 0;
  const messages: ModelMessage[] = [];
  const indexes: number[] = [];
  for (let index = start; index < stored.length; index += 1) {
    const entry = stored[index]!;
    if (isCompactionMarker(entry)) continue;
    messages.push(entry.message);
    indexes.push(index);
  }
  return { ...(summary ? { summary } : {}), messages, indexes };
}

/** Every message of the conversation, markers left out: what `strategy: "off"` sends. */
export function wholeHistory(stored: readonly StoredMessage[]): ModelMessage[] {
  return stored.filter((entry) => !isCompactionMarker(entry)).map((entry) => entry.message);
}
