/**
 * Splits `text` into pieces of at most `limit` UTF-16 code units whose concatenation is
 * exactly `text`. A piece ends after the last newline inside the window when there is
 * one in its second half, else after the last space there, else at the limit (never
 * between the two halves of a surrogate pair). Empty text gives no pieces.
 */
export function splitReplyText(text: string, limit: number): string[] {
  if (!Number.isInteger(limit) || limit < 2) {
    throw new RangeError(`limit must be an integer of at least 2, got ${limit}`);
  }
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const cut = findCut(rest, limit);
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest.length > 0) pieces.push(rest);
  return pieces;
}

function findCut(text: string, limit: number): number {
  const window = text.slice(0, limit);
  // Only break early when it keeps pieces reasonably full; otherwise cut at the limit.
  const earliest = Math.floor(limit / 2);
  const newline = window.lastIndexOf('\n');
  if (newline >= earliest) return newline + 1;
  const space = window.lastIndexOf(' ');
  if (space >= earliest) return space + 1;
  const code = text.charCodeAt(limit - 1);
  const endsInHighSurrogate = code >= 0xd800 && code <= 0xdbff;
  return endsInHighSurrogate ? limit - 1 : limit;
}
