import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import { UntrustedJsonSchemas } from '../json-schema/untrusted-json-schemas.js';
import { StructuredOutput } from './structured-output.js';

const schemas = new UntrustedJsonSchemas();
const citySchema = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } }, required: ['city', 'days'] };

describe('StructuredOutput', () => {
  it('object: a value that matches the schema is the output; one that does not names the path, never the value', async () => {
    const output = new StructuredOutput({ type: 'object', schema: citySchema }, schemas, 'config.model.output');
    expect(output.resultOf('{"city":"Oslo","days":3}')).toEqual({ valid: true, value: { city: 'Oslo', days: 3 } });
    const wrong = output.resultOf('{"city":"secret-value","days":0}');
    expect(wrong).toMatchObject({ valid: false });
    expect(JSON.stringify(wrong)).toContain('days');
    expect(JSON.stringify(wrong)).not.toContain('secret-value');
    expect(output.resultOf('not json')).toEqual({ valid: false, reason: "the model's final answer is not JSON" });
    // The provider is asked for the account's schema, natively.
    expect(await output.specification.responseFormat).toMatchObject({ type: 'json', schema: citySchema });
  });

  it('array: the elements of {elements: [...]}, each checked', () => {
    const output = new StructuredOutput({ type: 'array', elementSchema: citySchema }, schemas, 'output');
    expect(output.resultOf('{"elements":[{"city":"Oslo","days":1}]}')).toEqual({ valid: true, value: [{ city: 'Oslo', days: 1 }] });
    expect(output.resultOf('{"elements":[{"city":"Oslo","days":1},{"city":"Rome"}]}')).toMatchObject({ valid: false, reason: expect.stringContaining('element 1') });
    expect(output.resultOf('[1]')).toMatchObject({ valid: false });
  });

  it('choice: {result} among the options; json: any JSON, checked against a schema when given', () => {
    const choice = new StructuredOutput({ type: 'choice', options: ['yes', 'no'] }, schemas, 'output');
    expect(choice.resultOf('{"result":"no"}')).toEqual({ valid: true, value: 'no' });
    expect(choice.resultOf('{"result":"maybe"}')).toMatchObject({ valid: false });
    const json = new StructuredOutput({ type: 'json' }, schemas, 'output');
    expect(json.resultOf('[1,"two",null]')).toEqual({ valid: true, value: [1, 'two', null] });
    const checked = new StructuredOutput({ type: 'json', schema: { type: 'array' } }, schemas, 'output');
    expect(checked.resultOf('{}')).toMatchObject({ valid: false });
  });

  it('a schema that does not compile is a 400 naming where it is', () => {
    expect(() => new StructuredOutput({ type: 'object', schema: { $ref: '#/nowhere' } }, schemas, 'config.model.output')).toThrow(InvalidRequestError);
    expect(() => new StructuredOutput({ type: 'object', schema: { $ref: '#/nowhere' } }, schemas, 'config.model.output')).toThrow(/config\.model\.output\.schema/);
  });

  it("a catastrophic pattern in the account's schema is checked in linear time", () => {
    const output = new StructuredOutput({ type: 'object', schema: { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } } }, schemas, 'output');
    const hostile = `{"name":"${'a'.repeat(50_000)}!"}`;
    // A backtracking engine would not come back from this within the test's timeout; RE2 takes a few ms.
    expect(output.resultOf(hostile)).toMatchObject({ valid: false });
  });

  it('partial outputs are never parsed: each delta is passed on at the cost of reading its length', async () => {
    const output = new StructuredOutput({ type: 'object', schema: citySchema }, schemas, 'output');
    await expect(output.specification.parsePartialOutput({ text: '{"city":"Os' })).resolves.toEqual({ partial: 11 });
  });
});
