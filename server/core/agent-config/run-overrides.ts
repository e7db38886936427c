import { InvalidRequestError } from '../errors.js';
import { type ModelOverrides, parseModelOverrides } from '../model/model-overrides.js';
import type { ModelOutputConfig } from '../model/model-output-config.js';
import { parseRequestOutput } from '../structured-output/request-output.js';

/** The most characters a request's `instructions` may have. */
export const maxInstructionsCharacters = 20_000;

/**
 * What a chat, `/async` or NATS request asks of its run alone: `model` settings over
 * `config.model`'s, and `instructions`, system text after the agent's `system`. Neither is
 * stored in the conversation: the next request runs with the agent's config again. The run
 * keeps them (on its status row, or on the dispatch group it waits on), so a continuation of
 * the same run after async tools sees them too.
 */
export interface TurnOverrides {
  model?: ModelOverrides;
  instructions?: string;
  /** The structured output of this run, over `config.model.output` (see server/core/structured-output). */
  output?: ModelOutputConfig;
}

/** Reads `model` and `instructions` from a request body; undefined when it has neither. */
export function parseTurnOverrides(body: Record<string, unknown>): TurnOverrides | undefined {
  const model = parseModelOverrides(body.model);
  const { instructions } = body;
  if (instructions !== undefined) {
    if (typeof instructions !== 'string') throw new InvalidRequestError('instructions must be a string');
    if (instructions.length > maxInstructionsCharacters) throw new InvalidRequestError(`instructions must be at most ${maxInstructionsCharacters} characters (got ${instructions.length})`);
  }
  const hasInstructions = typeof instructions === 'string' && instructions.trim().length > 0;
  const output = parseRequestOutput(body.output);
  if (!model && !hasInstructions && !output) return undefined;
  return { ...(model ? { model } : {}), ...(hasInstructions ? { instructions } : {}), ...(output ? { output } : {}) };
}
