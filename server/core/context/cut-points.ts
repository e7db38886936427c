import type { ModelMessage } from 'ai';

/** The tool call ids a message opens (tool calls) and closes (tool results). */
function toolCallIds(message: ModelMessage): { opened: string[]; closed: string[] } {
  const opened: string[] = [];
  const closed: string[] = [];
  if (typeof message.content === 'string') return { opened, closed };
  for (const part of message.content) {
    if (part.type === 'tool-call') opened.push(part.toolCallId);
    else if (part.type === 'tool-result') closed.push(part.toolCallId);
  }
  return { opened, closed };
}

/**
 * The indexes of `messages` where the history may be cut: everything before the index has
 * every tool call answered (so a call is never split from its result, and a call waiting for
 * an approval or an async result stays with what follows it), and the message at the index is
 * not a tool message. Index 0 is always one.
 */
export function cutPoints(messages: readonly ModelMessage[]): number[] {
  const points: number[] = [];
  const open = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (open.size === 0 && message.role !== 'tool') points.push(index);
    const { opened, closed } = toolCallIds(message);
    for (const id of opened) open.add(id);
    for (const id of closed) open.delete(id);
  }
  return points;
}

/** The index of the latest user message (-1 when none): it is always sent verbatim. */
export function latestUserMessage(messages: readonly ModelMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) if (messages[index]!.role === 'user') return index;
  return -1;
}

/**
 * Where the older part ends when the last `keepRecentTokens` must stay verbatim: the latest
 * cut point at or before both the start of the recent part and the latest user message.
 * 0 when there is nothing older to summarize or drop.
 */
export function olderPartEnd(messages: readonly ModelMessage[], tokens: readonly number[], keepRecentTokens: number): number {
  let recentStart = messages.length;
  let kept = 0;
  while (recentStart > 0 && kept < keepRecentTokens) {
    recentStart -= 1;
    kept += tokens[recentStart]!;
  }
  const latestUser = latestUserMessage(messages);
  const limit = Math.min(recentStart, latestUser < 0 ? messages.length : latestUser);
  const points = cutPoints(messages);
  let chosen = 0;
  for (const point of points) if (point <= limit) chosen = point;
  return chosen;
}

/**
 * The first cut point from which the rest fits `budget` tokens, never past the latest user
 * message: what `strategy: "window"` keeps. When even the latest turn does not fit, the latest
 * cut point at or before the latest user message.
 */
export function windowStart(messages: readonly ModelMessage[], tokens: readonly number[], budget: number): number {
  const latestUser = latestUserMessage(messages);
  const limit = latestUser < 0 ? messages.length : latestUser;
  const suffix: number[] = new Array<number>(messages.length + 1).fill(0);
  for (let index = messages.length - 1; index >= 0; index -= 1) suffix[index] = suffix[index + 1]! + tokens[index]!;
  const points = cutPoints(messages).filter((point) => point <= limit);
  for (const point of points) if (suffix[point]! <= budget) return point;
  return points.at(-1) ?? 0;
}
