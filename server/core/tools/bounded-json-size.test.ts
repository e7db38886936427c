import type { Tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { boundedJsonPreview, boundedJsonSize } from './bounded-json-size.js';
import { withOutputLimit } from './tool-output-limit.js';

const samples: unknown[] = [
  null,
  0,
  -0,
  1e21,
  Number.NaN,
  true,
  false,
  '',
  'plain',
  'quote " backslash \\ newline \n tab \t control \u0001',
  'accents é ü, emoji 😀, lone surrogate \ud800',
  [],
  {},
  [1, 'two', null, undefined, () => 3, Symbol('s'), [[]], {}],
  { a: 1, b: undefined, c: () => 1, d: null, 'key "quoted"': [true, { nested: 'ü' }], e: new Date(0), [Symbol('hidden')]: 1 },
  { toJSON: () => ({ replaced: [1, 2, 3] }) },
  Object.assign(Object.create({ inherited: 1 }) as object, { own: 2 }),
  // eslint-disable-next-line no-sparse-arrays
  [1, , 3],
];

/** An array whose item reads are counted: what the walk touched. */
function countingArray(length: number): { array: unknown[]; reads: () => number } {
  let reads = 0;
  const array = new Proxy(Array.from({ length }, (_, index) => ({ index })), {
    get(target, property, receiver) {
      if (typeof property === 'string' && /^\d+$/.test(property)) reads += 1;
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
  return { array, reads: () => reads };
}

describe('boundedJsonSize', () => {
  it.each(samples.map((sample) => [JSON.stringify(sample), sample]))('is exactly the bytes of JSON.stringify for %s', (_label, sample) => {
    const expected = Buffer.byteLength(JSON.stringify(sample) ?? '');
    expect(boundedJsonSize(sample, 10_000)).toBe(expected);
    expect(boundedJsonPreview(sample, 10_000)).toBe(JSON.stringify(sample) ?? '');
  });

  it('answers over the cap as soon as it passes it, whatever the size of the rest', () => {
    const { array, reads } = countingArray(1_000_000);
    expect(boundedJsonSize(array, 1000)).toBeGreaterThan(1000);
    // `{"index":n}` is at least 11 bytes: about 100 items are enough to pass 1000 bytes.
    expect(reads()).toBeLessThan(200);
    expect(boundedJsonSize('x'.repeat(10_000_000), 1000)).toBeGreaterThan(1000);
    expect(boundedJsonSize({ a: 'b'.repeat(600), c: 'd'.repeat(600) }, 1000)).toBeGreaterThan(1000);
  });

  it('ends on a cycle instead of throwing', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(boundedJsonSize(cyclic, 500)).toBeGreaterThan(500);
  });
});

describe('withOutputLimit', () => {
  const toolOf = (output: unknown) => ({ execute: async () => output }) as unknown as Tool;
  const run = (tool: Tool) => (tool.execute as (input: unknown, options: unknown) => Promise<unknown>)({}, { toolCallId: 't', messages: [] });

  it('passes an output within the limit unchanged, and replaces a larger one with a bounded preview', async () => {
    expect(await run(withOutputLimit('small', toolOf({ ok: true }), 100))).toEqual({ ok: true });
    const { array, reads } = countingArray(1_000_000);
    const cut = (await run(withOutputLimit('big', toolOf(array), 1000))) as { error: string; truncated: boolean; preview: string };
    expect(cut.error).toBe('big returned more than the limit of 1000 bytes for one tool output (measured as JSON); the output was cut.');
    expect(cut.truncated).toBe(true);
    expect(cut.preview).toMatch(/^\[\{"index":0\},\{"index":1\}/);
    expect(cut.preview.length).toBeLessThanOrEqual(1000);
    // Not JSON.stringify of a million items: both the size and the preview stopped early.
    expect(reads()).toBeLessThan(400);
  });

  it('cuts a cyclic output instead of failing the call', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const cut = (await run(withOutputLimit('loop', toolOf(cyclic), 100))) as { truncated: boolean };
    expect(cut.truncated).toBe(true);
  });
});
