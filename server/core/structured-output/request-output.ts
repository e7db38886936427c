import { InvalidRequestError } from '../errors.js';
import { type ModelOutputConfig, modelOutputConfigSchema } from '../model/model-output-config.js';

/**
 * A request's own `output` (chat, `/async`, NATS): the same shape as `config.model.output`, over
 * it for that run. Only the shape is checked here; its schemas are compiled when the turn starts
 * (a schema that does not compile is a 400 naming `output.schema`).
 */
export function parseRequestOutput(value: unknown, field = 'output'): ModelOutputConfig | undefined {
  if (value === undefined) return undefined;
  const parsed = modelOutputConfigSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidRequestError(`${[field, ...(issue?.path ?? [])].join('.')} ${issue?.message ?? 'is invalid'}`);
  }
  return parsed.data;
}
