import { z } from 'zod';
import { parseOrThrow, requireObject } from '../config-parsing/config-section-parsing.js';
import { InvalidRequestError } from '../errors.js';
import { bucketPathSchema } from '../sandbox/bucket-path.js';

const skillDescription = z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(1024, 'must be at most 1024 characters');
const inlineSkillSchema = z.strictObject({
  description: skillDescription,
  instructions: z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(100_000, 'must be at most 100000 characters'),
});
const fileSkillSchema = z.strictObject({ description: skillDescription, file: bucketPathSchema });

/** A skill: its instructions inline, or a file in the bucket that holds them. */
export type SkillConfig = z.infer<typeof inlineSkillSchema> | z.infer<typeof fileSkillSchema>;

export const skillNamePattern = /^[a-z][a-z0-9_-]{0,63}$/;

/**
 * Validate `config.skills`: skill name to `{description, instructions}` or `{description, file}`.
 * Throws an InvalidRequestError naming the offending path.
 */
export function validateSkillsConfig(value: unknown, path = 'config.skills'): Record<string, SkillConfig> {
  const entries = requireObject(value, path, 'skill name to skill');
  const skills: Record<string, SkillConfig> = {};
  for (const [name, entry] of Object.entries(entries)) {
    const entryPath = `${path}.${name}`;
    if (!skillNamePattern.test(name)) {
      throw new InvalidRequestError(`${entryPath} is not a valid skill name (a lowercase letter, then up to 63 lowercase letters, digits, "_" or "-")`);
    }
    const skill = requireObject(entry, entryPath, 'a skill: {description, instructions} or {description, file}');
    if ('instructions' in skill && 'file' in skill) {
      throw new InvalidRequestError(`${entryPath} must have either instructions or file, not both`);
    }
    if (!('instructions' in skill) && !('file' in skill)) {
      throw new InvalidRequestError(`${entryPath} must have instructions (inline text) or file (a relative path in the bucket)`);
    }
    skills[name] = 'file' in skill ? parseOrThrow(fileSkillSchema, skill, entryPath) : parseOrThrow(inlineSkillSchema, skill, entryPath);
  }
  return skills;
}
