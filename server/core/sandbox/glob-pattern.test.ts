import { describe, expect, it } from 'vitest';
import { compileGlob } from './glob-pattern.js';

const matches = (pattern: string, file: string) => compileGlob(pattern).matches(file);

describe('compileGlob', () => {
  it('matches like a glob relative to its folder', () => {
    expect(matches('*.ts', 'a.ts')).toBe(true);
    expect(matches('*.ts', 'src/a.ts')).toBe(false);
    expect(matches('**/*.ts', 'a.ts')).toBe(true);
    expect(matches('**/*.ts', 'src/deep/b.ts')).toBe(true);
    expect(matches('src/**', 'src/deep/b.ts')).toBe(true);
    expect(matches('src/**/b.ts', 'src/b.ts')).toBe(true);
    expect(matches('**/*', '.hidden/file')).toBe(true);
    expect(matches('?.md', 'a.md')).toBe(true);
    expect(matches('?.md', 'ab.md')).toBe(false);
    expect(matches('[a-c]x.txt', 'bx.txt')).toBe(true);
    expect(matches('[!a-c]x.txt', 'bx.txt')).toBe(false);
    expect(matches('*.{ts,md}', 'notes.md')).toBe(true);
    expect(matches('{src,lib}/**/*.ts', 'lib/x/y.ts')).toBe(true);
    expect(matches('\\*.txt', '*.txt')).toBe(true);
    expect(matches('\\*.txt', 'a.txt')).toBe(false);
  });

  it('answers patterns that make a backtracking matcher explode, at once', () => {
    // Compiled to a backtracking regex, this pattern against this name takes on the order of 200^12 steps.
    const name = 'a'.repeat(200);
    expect(matches(`${'*a'.repeat(12)}*b`, name)).toBe(false);
    expect(matches(`${'**/'.repeat(30)}x`, `${'d/'.repeat(60)}y`)).toBe(false);
  });

  it('refuses brace groups that expand past the cap', () => {
    expect(() => compileGlob('{a,b}'.repeat(12))).toThrow(/more than 256 alternatives/);
  });
});
