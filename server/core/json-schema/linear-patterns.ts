import { RE2JS } from 're2js';

/** Thrown from inside a validator when its pattern work passes the budget; the caller turns it into a failed validation. */
export class PatternBudgetExceededError extends Error {
  constructor() {
    super('The value is too large to be checked against the schema’s patterns within the service’s bounds.');
    this.name = 'PatternBudgetExceededError';
  }
}

/** The part of a compiled RE2 program this module reads to price a match (re2js is pinned; see `instructionsOf`). */
interface CompiledProgram {
  re2Input?: { prog?: { inst?: unknown[] } };
}

/**
 * How many NFA instructions a pattern compiled to. A linear-time engine still costs
 * `text length × program size`: `[a-z]{1,100}` is 400 instructions, 15 ns each per character
 * on a 100 KB string. Falls back to a generous estimate from the pattern's length.
 */
function instructionsOf(compiled: RE2JS, pattern: string): number {
  const count = (compiled as unknown as CompiledProgram).re2Input?.prog?.inst?.length;
  return typeof count === 'number' && count > 0 ? count : pattern.length * 8 + 8;
}

/** Something with `test`, as Ajv calls it; `toString` is Ajv's key for sharing one compiled pattern. */
export interface LinearPattern {
  test(text: string): boolean;
  toString(): string;
}

/**
 * Regular expressions of untrusted JSON Schemas (`pattern`, `patternProperties`, string
 * formats) run on RE2 (re2js, pure JavaScript): linear time, so `^(a+)+$` against
 * `"aaaa…!"` costs microseconds, not a stalled event loop. Linear is still `text × program`,
 * so each validation runs under a work budget (characters × instructions); past it the match
 * throws `PatternBudgetExceededError`, which the validator reports as a failed validation.
 * Validation is synchronous, so one budget per instance is enough.
 */
export class LinearPatterns {
  private remaining = Number.POSITIVE_INFINITY;

  constructor(private readonly workBudget: number) {}

  /** Compiles `pattern` (JavaScript flags: `u` is implied, `i` honoured); an unsupported pattern throws. */
  compile(pattern: string, flags = ''): LinearPattern {
    const compiled = RE2JS.compile(pattern, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
    const instructions = instructionsOf(compiled, pattern);
    const key = `/${pattern}/${flags}`;
    return {
      test: (text: string) => {
        this.remaining -= (text.length + 1) * instructions;
        if (this.remaining < 0) throw new PatternBudgetExceededError();
        return compiled.matcher(text).find();
      },
      toString: () => key,
    };
  }

  /** Runs `work` (one validation) with a fresh budget. */
  withBudget<T>(work: () => T): T {
    this.remaining = this.workBudget;
    try {
      return work();
    } finally {
      this.remaining = Number.POSITIVE_INFINITY;
    }
  }

  /** Takes `units` of the budget for other bounded work (a format checked by a function). */
  spend(units: number): void {
    this.remaining -= units;
    if (this.remaining < 0) throw new PatternBudgetExceededError();
  }
}
