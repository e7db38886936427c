import { SandboxToolError } from './sandbox-tool-error.js';

/**
 * Glob matching in time linear in path length times pattern length, whatever the pattern:
 * the model writes the patterns, and a glob compiled to a backtracking regular expression
 * (`*a*a*a*a*b` against a long name) could hold the event loop. Supported: `*` (within a
 * segment), `?`, `[abc]`, `[a-z]`, `[!x]`/`[^x]`, `\` escapes, `**` (any number of
 * segments) and `{a,b}` alternatives. Dot files match like any file.
 */

const maxAlternatives = 256;
const maxPatternLength = 1000;

/** Expand `{a,b}` groups (nested too) into plain patterns, at most maxAlternatives of them. */
function expandBraces(pattern: string): string[] {
  let depth = 0;
  let open = -1;
  for (let index = 0; index < pattern.length; index += 1) {
    const character = pattern[index];
    if (character === '\\') {
      index += 1;
    } else if (character === '{') {
      if (depth === 0) open = index;
      depth += 1;
    } else if (character === '}' && depth > 0) {
      depth -= 1;
      if (depth === 0) {
        const body = pattern.slice(open + 1, index);
        const options = splitTopLevel(body);
        if (options.length < 2) continue;
        const prefix = pattern.slice(0, open);
        const rest = expandBraces(pattern.slice(index + 1));
        const result: string[] = [];
        for (const option of options) {
          for (const expanded of expandBraces(option)) {
            for (const tail of rest) {
              result.push(prefix + expanded + tail);
              if (result.length > maxAlternatives) throw new SandboxToolError('invalid-input', `The pattern expands to more than ${maxAlternatives} alternatives; use fewer {a,b} groups.`);
            }
          }
        }
        return result;
      }
    }
  }
  return [pattern];
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < body.length; index += 1) {
    const character = body[index];
    if (character === '\\') index += 1;
    else if (character === '{') depth += 1;
    else if (character === '}') depth -= 1;
    else if (character === ',' && depth === 0) {
      parts.push(body.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

/** One pattern character: a literal, any one character, a class, or a run of any characters. */
type Token = { kind: 'literal'; value: string } | { kind: 'any' } | { kind: 'star' } | { kind: 'class'; negated: boolean; ranges: [string, string][] };

function tokenize(segment: string): Token[] {
  const tokens: Token[] = [];
  const characters = [...segment];
  for (let index = 0; index < characters.length; index += 1) {
    const character = characters[index] as string;
    if (character === '\\' && index + 1 < characters.length) {
      index += 1;
      tokens.push({ kind: 'literal', value: characters[index] as string });
    } else if (character === '*') {
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (character === '?') {
      tokens.push({ kind: 'any' });
    } else if (character === '[') {
      const close = characters.indexOf(']', index + 2);
      if (close === -1) {
        tokens.push({ kind: 'literal', value: '[' });
        continue;
      }
      let body = characters.slice(index + 1, close);
      const negated = body[0] === '!' || body[0] === '^';
      if (negated) body = body.slice(1);
      const ranges: [string, string][] = [];
      for (let position = 0; position < body.length; position += 1) {
        const low = body[position] as string;
        if (body[position + 1] === '-' && position + 2 < body.length) {
          ranges.push([low, body[position + 2] as string]);
          position += 2;
        } else {
          ranges.push([low, low]);
        }
      }
      tokens.push({ kind: 'class', negated, ranges });
      index = close;
    } else {
      tokens.push({ kind: 'literal', value: character });
    }
  }
  return tokens;
}

function matchesToken(token: Token, character: string): boolean {
  switch (token.kind) {
    case 'literal':
      return token.value === character;
    case 'any':
      return true;
    case 'class':
      return token.ranges.some(([low, high]) => character >= low && character <= high) !== token.negated;
    case 'star':
      return true;
  }
}

/** Match one path segment: the classic wildcard walk that backtracks only to the last star, O(n*m). */
function matchSegment(tokens: Token[], name: string): boolean {
  const characters = [...name];
  let token = 0;
  let position = 0;
  let starToken = -1;
  let starPosition = 0;
  while (position < characters.length) {
    const current = tokens[token];
    if (current && current.kind !== 'star' && matchesToken(current, characters[position] as string)) {
      token += 1;
      position += 1;
    } else if (current?.kind === 'star') {
      starToken = token;
      starPosition = position;
      token += 1;
    } else if (starToken !== -1) {
      token = starToken + 1;
      starPosition += 1;
      position = starPosition;
    } else {
      return false;
    }
  }
  while (tokens[token]?.kind === 'star') token += 1;
  return token === tokens.length;
}

type CompiledSegment = 'globstar' | Token[];

/** A compiled glob: `matches('src/a.ts')` for `/`-separated paths relative to where the glob starts. */
export interface GlobMatcher {
  matches(relativePath: string): boolean;
}

export function compileGlob(pattern: string): GlobMatcher {
  if (pattern.length > maxPatternLength) throw new SandboxToolError('invalid-input', `The pattern must be at most ${maxPatternLength} characters.`);
  const alternatives: CompiledSegment[][] = expandBraces(pattern).map((expanded) =>
    expanded
      .split('/')
      .filter((segment, index, all) => segment !== '' && !(segment === '.' && index < all.length - 1))
      .map((segment) => (segment === '**' ? 'globstar' : tokenize(segment))),
  );
  return {
    matches(relativePath) {
      const names = relativePath.split('/');
      return alternatives.some((segments) => matchSegments(segments, names));
    },
  };
}

/** Segments with `**`, by dynamic programming over (pattern segment, path segment): no blow-up. */
function matchSegments(segments: CompiledSegment[], names: string[]): boolean {
  // reachable[j]: the pattern so far can consume exactly the first j names.
  let reachable = names.map(() => false).concat(false);
  reachable[0] = true;
  for (const segment of segments) {
    const next = names.map(() => false).concat(false);
    if (segment === 'globstar') {
      let any = false;
      for (let index = 0; index <= names.length; index += 1) {
        any ||= reachable[index] as boolean;
        next[index] = any;
      }
    } else {
      for (let index = 0; index < names.length; index += 1) {
        if (reachable[index] && matchSegment(segment, names[index] as string)) next[index + 1] = true;
      }
    }
    reachable = next;
  }
  return reachable[names.length] as boolean;
}
