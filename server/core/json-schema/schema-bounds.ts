import { InvalidRequestError } from '../errors.js';

/** How big an untrusted JSON Schema may be before it is compiled (compiling is proportional to its size). */
export interface JsonSchemaBounds {
  /** Values in the schema (objects, arrays, strings, numbers...), all levels together. */
  maxNodes: number;
  /** Nesting of objects and arrays. */
  maxDepth: number;
  /** Characters of one `pattern` or `patternProperties` key. */
  maxPatternLength: number;
}

export const defaultJsonSchemaBounds: JsonSchemaBounds = { maxNodes: 20_000, maxDepth: 48, maxPatternLength: 1000 };

/**
 * Refuses a schema over `bounds` with a 400 naming `where` and the bound, before anything
 * compiles it. The walk is iterative and stops at the first excess, so a hostile schema costs
 * at most `maxNodes` steps.
 */
export function checkSchemaBounds(schema: unknown, bounds: JsonSchemaBounds, where: string): void {
  if (typeof schema === 'boolean') return;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw new InvalidRequestError(`${where} must be a JSON Schema (an object or a boolean)`);
  const stack: { value: unknown; depth: number }[] = [{ value: schema, depth: 1 }];
  let nodes = 0;
  while (stack.length > 0) {
    const { value, depth } = stack.pop() as { value: unknown; depth: number };
    nodes += 1;
    if (nodes > bounds.maxNodes) throw new InvalidRequestError(`${where} is too large: more than ${bounds.maxNodes} values`);
    if (typeof value !== 'object' || value === null) continue;
    if (depth > bounds.maxDepth) throw new InvalidRequestError(`${where} is nested more than ${bounds.maxDepth} levels deep`);
    if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      if (key === 'pattern' && typeof child === 'string') checkPattern(child, bounds, where);
      if (key === 'patternProperties' && typeof child === 'object' && child !== null) {
        for (const pattern of Object.keys(child)) checkPattern(pattern, bounds, where);
      }
      stack.push({ value: child, depth: depth + 1 });
    }
  }
}

function checkPattern(pattern: string, bounds: JsonSchemaBounds, where: string): void {
  if (pattern.length > bounds.maxPatternLength) throw new InvalidRequestError(`${where} has a pattern longer than ${bounds.maxPatternLength} characters`);
}
