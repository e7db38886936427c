import { z } from 'zod';

const jsonSchemaObject = z.record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' });

/**
 * `config.model.output`, or a request's own `output`: the structured value a turn ends with.
 * `object` needs `schema`, `array` needs `elementSchema` (the schema of one element), `choice`
 * needs `options`; `json` is any JSON value, checked against `schema` when one is given. The
 * JSON Schemas come from the account: untrusted, compiled only by `UntrustedJsonSchemas` (see
 * server/core/structured-output).
 */
export const modelOutputConfigSchema = z
  .strictObject(
    {
      type: z.enum(['object', 'array', 'choice', 'json'], { error: 'must be "object", "array", "choice" or "json"' }),
      schema: jsonSchemaObject.optional(),
      elementSchema: jsonSchemaObject.optional(),
      options: z.array(z.string({ error: 'must be a string' }).min(1, 'must not be empty'), { error: 'must be an array of strings' }).min(1, 'must have at least one option').max(1000, 'must have at most 1000 options').optional(),
      name: z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
      description: z.string({ error: 'must be a string' }).max(10_000, 'must be at most 10000 characters').optional(),
    },
    { error: 'must be an object {type, schema?, elementSchema?, options?, name?, description?}' },
  )
  .superRefine((output, context) => {
    const requirements = { object: 'schema', array: 'elementSchema', choice: 'options', json: undefined } as const;
    const required = requirements[output.type];
    if (required && output[required] === undefined) context.addIssue({ code: 'custom', path: [required], message: `is required when type is "${output.type}"` });
  });

export type ModelOutputConfig = z.infer<typeof modelOutputConfigSchema>;
