import type { jsonSchemaValidator, JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { UntrustedJsonSchemas } from '../json-schema/untrusted-json-schemas.js';

/**
 * The MCP client's validator of tools' `outputSchema`s, on the service's untrusted-schema
 * compiler (linear-time patterns, bounded schemas) instead of the SDK's default Ajv, whose
 * backtracking `RegExp` lets a server's `"pattern": "^(a+)+$"` stall the event loop for seconds.
 * A schema that cannot be compiled does not fail the whole tool list: that tool's structured
 * content is then reported as not matching, with the reason.
 */
export function mcpOutputValidator(schemas: UntrustedJsonSchemas): jsonSchemaValidator {
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      let validate: ReturnType<UntrustedJsonSchemas['compile']>;
      try {
        validate = schemas.compile(schema, "the tool's outputSchema");
      } catch (error) {
        const reason = (error as Error).message;
        return () => ({ valid: false, data: undefined, errorMessage: reason });
      }
      return (input: unknown) => {
        const result = validate(input);
        return result.valid ? { valid: true, data: input as T, errorMessage: undefined } : { valid: false, data: undefined, errorMessage: result.errors };
      };
    },
  };
}
