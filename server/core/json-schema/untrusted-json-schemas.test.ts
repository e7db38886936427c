import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import { defaultUntrustedJsonSchemaOptions, UntrustedJsonSchemas } from './untrusted-json-schemas.js';

const evil = `${'a'.repeat(40)}!`;

describe('untrusted JSON Schemas', () => {
  const schemas = new UntrustedJsonSchemas();

  it('runs a catastrophic-backtracking pattern on the linear engine', () => {
    // On JavaScript's RegExp this match takes about 2^40 steps (days); on RE2 it is immediate.
    const validate = schemas.compile({ type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } }, 'schema');
    expect(validate({ s: evil })).toMatchObject({ valid: false, errors: expect.stringContaining('must match pattern') });
    expect(validate({ s: 'aaaa' })).toEqual({ valid: true });
  });

  it('runs patternProperties and formats on the linear engine too', () => {
    const byKey = schemas.compile({ type: 'object', patternProperties: { '^(a+)+$': { type: 'number' } } }, 'schema');
    expect(byKey({ [evil]: 'not checked', aaa: 1 })).toEqual({ valid: true });
    expect(byKey({ aaa: 'x' }).valid).toBe(false);
    const email = schemas.compile({ type: 'string', format: 'email' }, 'schema');
    expect(email('someone@example.com')).toEqual({ valid: true });
    expect(email(`${'a'.repeat(50_000)}@`).valid).toBe(false);
    const hostname = schemas.compile({ type: 'string', format: 'hostname' }, 'schema');
    expect(hostname('example.com')).toEqual({ valid: true });
    expect(hostname('a'.repeat(100_000)).valid).toBe(false);
  });

  it('stops pattern work past the budget and reports a failed validation', () => {
    const small = new UntrustedJsonSchemas({ ...defaultUntrustedJsonSchemaOptions, patternWorkBudget: 10_000 });
    const validate = small.compile({ type: 'array', items: { type: 'string', pattern: '^[a-z]{1,100}$' } }, 'schema');
    expect(validate(['abc'])).toEqual({ valid: true });
    expect(validate(Array.from({ length: 1000 }, () => 'abcdefgh'))).toMatchObject({ valid: false, errors: expect.stringContaining('too large') });
  });

  it('does not compare items pairwise for uniqueItems', () => {
    const validate = schemas.compile({ type: 'array', uniqueItems: true }, 'schema');
    expect(validate([{ a: 1 }, { a: 1 }])).toEqual({ valid: true });
  });

  it('refuses schemas over the bounds, and ones that do not compile, with a 400 naming where', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 100; level += 1) deep = { type: 'object', properties: { x: deep } };
    expect(() => schemas.compile(deep, 'outputSchema')).toThrow(/outputSchema is nested more than 48 levels/);
    const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 20_001 }, (_, index) => [`p${index}`, true])) };
    expect(() => schemas.compile(wide, 'outputSchema')).toThrow(/more than 20000 values/);
    expect(() => schemas.compile({ pattern: 'a'.repeat(1001) }, 'outputSchema')).toThrow(/pattern longer than 1000/);
    expect(() => schemas.compile({ type: 'string', pattern: '(?=a)b' }, 'outputSchema')).toThrow(InvalidRequestError);
    expect(() => schemas.compile({ $ref: 'https://example.com/schema.json' }, 'outputSchema')).toThrow(/outputSchema could not be compiled/);
    expect(() => schemas.compile('string', 'outputSchema')).toThrow(/must be a JSON Schema/);
  });

  it('compiles a schema once per hash and keeps a bounded cache', () => {
    const few = new UntrustedJsonSchemas({ ...defaultUntrustedJsonSchemaOptions, cacheSize: 2 });
    const first = few.compile({ type: 'string' }, 'schema');
    expect(few.compile({ type: 'string' }, 'schema')).toBe(first);
    few.compile({ type: 'number' }, 'schema');
    few.compile({ type: 'boolean' }, 'schema');
    expect(few.cachedCount).toBe(2);
    expect(few.compile({ type: 'string' }, 'schema')).not.toBe(first);
  });

  it('compiles two schemas with the same $id one after the other', () => {
    const one = schemas.compile({ $id: 'https://example.com/tool', type: 'string' }, 'schema');
    const two = schemas.compile({ $id: 'https://example.com/tool', type: 'number' }, 'schema');
    expect(one('x')).toEqual({ valid: true });
    expect(two(1)).toEqual({ valid: true });
  });
});
