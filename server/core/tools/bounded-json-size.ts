/** A value to write, a piece of text, or the rest of an array from `next` on (read one item at a time). */
type Visit = { value: unknown; inArray: boolean } | { text: string } | { items: unknown[]; next: number };

/** What `JSON.stringify` writes for a value it has reached (after `toJSON`). */
function prepared(value: unknown, key: string): unknown {
  if (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return (value as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  return value;
}

function isLeftOut(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/**
 * Walks `value` as `JSON.stringify` would write it, front to back, handing each piece of text
 * to `write` (when given), and stops as soon as more than `cap` bytes are written. Iterative,
 * and it never copies more than `cap` characters of a string nor reads an array item past the cap.
 */
function walkJson(value: unknown, cap: number, write?: (text: string) => void): number {
  let size = 0;
  const emit = (text: string, bytes = Buffer.byteLength(text)) => {
    size += bytes;
    write?.(text);
  };
  const stack: Visit[] = [{ value: prepared(value, ''), inArray: false }];
  while (stack.length > 0 && size <= cap) {
    const visit = stack.pop() as Visit;
    if ('text' in visit) {
      emit(visit.text);
      continue;
    }
    if ('items' in visit) {
      if (visit.next >= visit.items.length) emit(']');
      else {
        if (visit.next > 0) emit(',');
        stack.push({ items: visit.items, next: visit.next + 1 }, { value: prepared(visit.items[visit.next], String(visit.next)), inArray: true });
      }
      continue;
    }
    const current = visit.value;
    if (current === null) emit('null');
    else if (isLeftOut(current)) {
      if (visit.inArray) emit('null');
    } else if (typeof current === 'string') {
      // Each character is at least one byte: a string longer than what is left is over the cap unread.
      const left = cap - size;
      if (current.length + 2 > left) emit(JSON.stringify(current.slice(0, left)), current.length + 2);
      else emit(JSON.stringify(current));
    } else if (typeof current === 'number') emit(Number.isFinite(current) ? String(current) : 'null');
    else if (typeof current === 'boolean') emit(String(current));
    else if (typeof current === 'bigint') emit(String(current));
    else if (Array.isArray(current)) {
      emit('[');
      stack.push({ items: current, next: 0 });
    } else {
      emit('{');
      const members: Visit[] = [];
      let memberBytes = 0;
      for (const key in current) {
        if (!Object.hasOwn(current, key)) continue;
        const member = prepared((current as Record<string, unknown>)[key], key);
        if (isLeftOut(member)) continue;
        const name = `${members.length > 0 ? ',' : ''}${JSON.stringify(key)}:`;
        members.push({ text: name }, { value: member, inArray: false });
        memberBytes += name.length;
        if (memberBytes > cap) break;
      }
      stack.push({ text: '}' });
      for (let index = members.length - 1; index >= 0; index -= 1) stack.push(members[index] as Visit);
    }
  }
  return size;
}

/**
 * The size in bytes of `JSON.stringify(value)`, found by a walk that stops as soon as it passes
 * `cap`: a value of any size (a 300 MB string, a million-item array, a cycle) costs about `cap`
 * steps and no full copy. At or under the cap the result is exact; past it, it is some number
 * over `cap`. Follows `JSON.stringify`: `toJSON`, `undefined`, functions and symbols left out of
 * objects and `null` in arrays, non-finite numbers as `null`; a BigInt counts as its digits
 * (`JSON.stringify` would throw), a cycle as never-ending.
 */
export function boundedJsonSize(value: unknown, cap: number): number {
  return walkJson(value, cap);
}

/** The first `maxCharacters` or so of `JSON.stringify(value)`, written by the same bounded walk. */
export function boundedJsonPreview(value: unknown, maxCharacters: number): string {
  const pieces: string[] = [];
  walkJson(value, maxCharacters, (text) => pieces.push(text));
  return pieces.join('').slice(0, maxCharacters);
}
