import { jsonSchema, type JSONSchema7, Output } from 'ai';
import type { CompiledJsonSchema, UntrustedJsonSchemas } from '../json-schema/untrusted-json-schemas.js';
import type { ModelOutputConfig } from '../model/model-output-config.js';

/** How the final answer of a turn with structured output came out: its value, or why there is none. */
export type StructuredOutputResult = { valid: true; value: unknown } | { valid: false; reason: string };

/** What `streamText` takes as `output`. */
export type OutputSpecification = ReturnType<typeof Output.json>;

const notJson = { valid: false, reason: "the model's final answer is not JSON" } as const;

function parseJson(text: string): { parsed: true; value: unknown } | { parsed: false } {
  try {
    return { parsed: true, value: JSON.parse(text) as unknown };
  } catch {
    return { parsed: false };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A turn's structured output (`config.model.output` or the request's `output`): the
 * specification `streamText` sends the provider (its native structured-output request: OpenAI
 * `response_format`/`text.format`, Anthropic `output_config`/the json tool, Google
 * `responseSchema`), and the check of the final answer against the account's schema.
 *
 * The account's schemas are compiled by `UntrustedJsonSchemas` (linear-time patterns under a
 * work budget). The SDK's own partial parsing is switched off: it re-parses the whole text
 * on every text delta (quadratic in the answer's length: a hostile model's one-character
 * deltas would hold the event loop), and nothing here reads partial values. The final answer is parsed once, whoever asks first (the SDK's `onEnd` or the turn).
 */
export class StructuredOutput {
  readonly specification: OutputSpecification;
  private readonly check: (value: unknown) => StructuredOutputResult;
  private last: { text: string; result: StructuredOutputResult } | undefined;

  /** Compiles `config`'s schemas; a schema that does not compile or is too large is a 400 naming `where`. */
  constructor(
    readonly config: ModelOutputConfig,
    schemas: UntrustedJsonSchemas,
    where: string,
  ) {
    const { name, description } = config;
    const named = { ...(name !== undefined ? { name } : {}), ...(description !== undefined ? { description } : {}) };
    const validate = (compiled: CompiledJsonSchema, value: unknown): StructuredOutputResult => {
      const validation = compiled(value);
      return validation.valid ? { valid: true, value } : { valid: false, reason: `the model's output does not match the schema: ${validation.errors}` };
    };
    let base: OutputSpecification;
    if (config.type === 'object') {
      const compiled = schemas.compile(config.schema, `${where}.schema`);
      base = Output.object({ schema: this.sdkSchema(config.schema, compiled), ...named }) as OutputSpecification;
      this.check = (value) => validate(compiled, value);
    } else if (config.type === 'array') {
      const compiled = schemas.compile(config.elementSchema, `${where}.elementSchema`);
      base = Output.array({ element: this.sdkSchema(config.elementSchema, compiled), ...named }) as unknown as OutputSpecification;
      this.check = (value) => {
        // The provider is asked for `{elements: [...]}` (a top-level array is not a valid response schema everywhere).
        if (!isObject(value) || !Array.isArray(value.elements)) return { valid: false, reason: "the model's output is not an object with an elements array" };
        for (const [index, element] of value.elements.entries()) {
          const checked = validate(compiled, element);
          if (!checked.valid) return { valid: false, reason: `element ${index}: ${checked.reason}` };
        }
        return { valid: true, value: value.elements };
      };
    } else if (config.type === 'choice') {
      const options = config.options ?? [];
      base = Output.choice({ options, ...named }) as OutputSpecification;
      this.check = (value) =>
        isObject(value) && typeof value.result === 'string' && options.includes(value.result) ? { valid: true, value: value.result } : { valid: false, reason: `the model's output is not one of the options (${options.length})` };
    } else {
      const compiled = config.schema === undefined ? undefined : schemas.compile(config.schema, `${where}.schema`);
      base = Output.json(named);
      this.check = (value) => (compiled ? validate(compiled, value) : { valid: true, value });
    }
    this.specification = {
      ...base,
      // A value that changes with every delta, so each delta is passed on at once (an
      // undefined one would hold the text back until the text ends), at no parsing cost.
      parsePartialOutput: ({ text }) => Promise.resolve({ partial: text.length }),
      parseCompleteOutput: ({ text }) => {
        const result = this.resultOf(text);
        return result.valid ? Promise.resolve(result.value as never) : Promise.reject(new Error(result.reason));
      },
    };
  }

  /** The final answer's value, or why it has none (the reason names schema paths, never the value). */
  resultOf(text: string): StructuredOutputResult {
    if (this.last?.text === text) return this.last.result;
    const parsed = parseJson(text);
    const result = parsed.parsed ? this.check(parsed.value) : notJson;
    this.last = { text, result };
    return result;
  }

  /** The account's schema as the SDK sends it, validated by our compiled validator (never the SDK's). */
  private sdkSchema(schema: unknown, compiled: CompiledJsonSchema) {
    return jsonSchema<unknown>(schema as JSONSchema7, {
      validate: (value) => {
        const validation = compiled(value);
        return validation.valid ? { success: true, value } : { success: false, error: new Error(validation.errors) };
      },
    });
  }
}
