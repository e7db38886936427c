import { createHash } from 'node:crypto';
import { Ajv, type ValidateFunction } from 'ajv';
import { InvalidRequestError } from '../errors.js';
import { boundedFormats } from './bounded-formats.js';
import { LinearPatterns, PatternBudgetExceededError } from './linear-patterns.js';
import { checkSchemaBounds, defaultJsonSchemaBounds, type JsonSchemaBounds } from './schema-bounds.js';

/** The outcome of validating one value; `errors` is short and names schema paths, never the value. */
export type JsonSchemaValidation = { valid: true } | { valid: false; errors: string };

/** A compiled schema: synchronous, bounded in time by the linear pattern engine and its budget. */
export type CompiledJsonSchema = (value: unknown) => JsonSchemaValidation;

/** Bounds of `UntrustedJsonSchemas` (code constants; see docs/security.md). */
export interface UntrustedJsonSchemaOptions extends JsonSchemaBounds {
  /** Compiled schemas kept, keyed by the schema's hash; the least recently used goes first. */
  cacheSize: number;
  /** Pattern work of one validation: characters tested × RE2 instructions (about 15 ns each). */
  patternWorkBudget: number;
}

export const defaultUntrustedJsonSchemaOptions: UntrustedJsonSchemaOptions = { ...defaultJsonSchemaBounds, cacheSize: 500, patternWorkBudget: 5_000_000 };

/** Longest error text kept (Ajv's text names paths and keywords; a long list is cut). */
const maxErrorsLength = 500;

/**
 * The one place a JSON Schema someone else wrote (an MCP server's tool schemas, an account's
 * schema) is compiled and run. Ajv with `strict: false` (unknown keywords are annotations),
 * draft-07 semantics like the MCP SDK's default validator, first error only; every regular
 * expression (`pattern`, `patternProperties`, string formats) on RE2 under a work budget;
 * `uniqueItems` is an annotation (Ajv checks it pairwise, quadratic in a hostile array's length);
 * no remote `$ref` is ever fetched. A schema over the size bounds, or one that does not compile
 * (an unknown `$ref`, a lookahead RE2 does not support), is a 400 naming `where`.
 */
export class UntrustedJsonSchemas {
  private readonly patterns: LinearPatterns;
  private readonly ajv: Ajv;
  private readonly cache = new Map<string, CompiledJsonSchema>();

  constructor(private readonly options: UntrustedJsonSchemaOptions = defaultUntrustedJsonSchemaOptions) {
    this.patterns = new LinearPatterns(options.patternWorkBudget);
    const regExp = Object.assign((pattern: string, flags: string) => this.patterns.compile(pattern, flags), { code: 'linearPattern' });
    this.ajv = new Ajv({
      strict: false,
      validateSchema: false,
      allErrors: false,
      addUsedSchema: false,
      logger: false,
      formats: boundedFormats(this.patterns),
      code: { regExp },
    });
    this.ajv.removeKeyword('uniqueItems');
  }

  /** The validator of `schema`, compiled once per distinct schema (by hash) while it stays in the cache. */
  compile(schema: unknown, where: string): CompiledJsonSchema {
    checkSchemaBounds(schema, this.options, where);
    const hash = createHash('sha256').update(JSON.stringify(schema)).digest('base64url');
    const cached = this.cache.get(hash);
    if (cached) {
      this.cache.delete(hash);
      this.cache.set(hash, cached);
      return cached;
    }
    const compiled = this.compileNow(schema as object | boolean, where);
    this.cache.set(hash, compiled);
    if (this.cache.size > this.options.cacheSize) this.cache.delete(this.cache.keys().next().value as string);
    return compiled;
  }

  /** Compiled schemas in the cache (tests look). */
  get cachedCount(): number {
    return this.cache.size;
  }

  private compileNow(schema: object | boolean, where: string): CompiledJsonSchema {
    let validate: ValidateFunction;
    try {
      validate = this.ajv.compile(schema);
    } catch (error) {
      throw new InvalidRequestError(`${where} could not be compiled: ${reasonOf(error)}`);
    } finally {
      // Ajv keeps every compiled schema object in a cache of its own; ours is the bounded one.
      if (typeof schema === 'object') this.ajv.removeSchema(schema);
    }
    return (value: unknown) => {
      try {
        if (this.patterns.withBudget(() => validate(value))) return { valid: true };
        return { valid: false, errors: this.ajv.errorsText(validate.errors).slice(0, maxErrorsLength) };
      } catch (error) {
        if (error instanceof PatternBudgetExceededError) return { valid: false, errors: error.message };
        if (error instanceof RangeError) return { valid: false, errors: 'the value is nested too deeply to be checked' };
        throw error;
      }
    };
  }
}

/** A short reason from Ajv or RE2, without the schema text it may quote at length. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '').slice(0, 200);
}
