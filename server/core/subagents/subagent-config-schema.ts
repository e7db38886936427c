import { z } from 'zod';
import { integerFrom, parseOrThrow, requireObject } from '../config-parsing/config-section-parsing.js';
import { agentIdPattern } from '../agents/agent-id.js';
import { InvalidRequestError } from '../errors.js';

const subagentSchema = z.strictObject({
  agents: z.record(
    z.string(),
    z.strictObject({ description: z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(1024, 'must be at most 1024 characters') }, { error: 'must be an object {description}' }),
    { error: 'must be an object keyed by agent id' },
  ),
  maxDepth: integerFrom(1, 5).default(2),
});

/** Which agents of the same account may run as subagents, and how deep they may nest. */
export type SubagentConfig = z.infer<typeof subagentSchema>;

/**
 * Validate `config.subagent`: `{agents: {<agentId>: {description}}, maxDepth?}`. Throws an
 * InvalidRequestError naming the offending path, e.g. `config.subagent.maxDepth must be an
 * integer from 1 to 5`.
 */
export function validateSubagentConfig(value: unknown, path = 'config.subagent'): SubagentConfig {
  requireObject(value, path, 'subagent settings: {agents, maxDepth?}');
  const parsed = parseOrThrow(subagentSchema, value, path);
  for (const agentId of Object.keys(parsed.agents)) {
    if (!agentIdPattern.test(agentId)) throw new InvalidRequestError(`${path}.agents.${agentId} is not a valid agent id`);
  }
  return parsed;
}
