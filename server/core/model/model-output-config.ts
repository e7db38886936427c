import { z } from 'zod';

const jsonSchemaObject = z.record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' });

/**
 * `config.model.output`: the structured value a turn ends with (JSON Schemas from the account:
 * untrusted). Only the shape is checked here.
 */
// TODO(issue 24 item 7): structured output is implemented by its own change; this is the accepted shape.
export const modelOutputConfigSchema = z.strictObject(
  {
    type: z.enum(['object', 'array', 'choice', 'json'], { error: 'must be "object", "array", "choice" or "json"' }),
    schema: jsonSchemaObject.optional(),
    elementSchema: jsonSchemaObject.optional(),
    options: z.array(z.string({ error: 'must be a string' }).min(1, 'must not be empty'), { error: 'must be an array of strings' }).min(1, 'must have at least one option').max(1000, 'must have at most 1000 options').optional(),
    name: z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
    description: z.string({ error: 'must be a string' }).max(10_000, 'must be at most 10000 characters').optional(),
  },
  { error: 'must be an object {type, schema?, elementSchema?, options?, name?, description?}' },
);

export type ModelOutputConfig = z.infer<typeof modelOutputConfigSchema>;
