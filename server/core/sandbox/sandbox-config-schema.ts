import { z } from 'zod';
import { agentIdPattern } from '../agents/agent.js';
import { InvalidRequestError } from '../errors.js';
import { zodIssueError } from '../agent-config/zod-issue.js';
import { isServiceVariable } from './sandbox-settings.js';

/**
 * Shapes of `config.sandbox`, `config.workspace`, `config.subagent` and `config.skills`
 * (contract §4, issue 8). Each validator throws an InvalidRequestError whose message names
 * the offending path, e.g. `config.sandbox.timeoutMs must be an integer from 100 to 600000`.
 */

const integerFrom = (minimum: number, maximum: number) => {
  const message = `must be an integer from ${minimum} to ${maximum}`;
  return z.number({ error: message }).int(message).min(minimum, message).max(maximum, message);
};

const environmentVariableName = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const sandboxLimitsSchema = z.strictObject({
  timeoutMs: integerFrom(100, 600_000).default(30_000),
  maxOutputBytes: integerFrom(1024, 10_485_760).default(65_536),
  environment: z
    .array(
      z
        .string({ error: 'must be an environment variable name' })
        .regex(environmentVariableName, 'must be an environment variable name (letters, digits, underscores)')
        // The service's own settings and secrets: never passed, whatever the operator allows.
        .refine((name) => !isServiceVariable(name), 'names a service variable; HARNESS_* and NATS_* are never passed to bash'),
      { error: 'must be an array of environment variable names' },
    )
    .max(100, 'must list at most 100 variables')
    .default([]),
  network: z.boolean({ error: 'must be true or false' }).default(false),
});

/** A sandbox and its limits: `config.sandbox`, or a workspace's own `sandbox` object. */
export type SandboxLimits = z.infer<typeof sandboxLimitsSchema>;

/**
 * Which workspace tools need approval. `read-only` also removes the tools that write.
 * - `read-only`: only `read`, `glob`, `grep` exist (no `write`, `edit`, `bash`), no approval.
 * - `ask`: every tool needs approval.
 * - `ask-writes`: `write`, `edit` and `bash` need approval; `read`, `glob`, `grep` don't.
 * - `auto`: nothing needs approval.
 */
export const permissionModes = ['read-only', 'ask', 'ask-writes', 'auto'] as const;
export type PermissionMode = (typeof permissionModes)[number];

/** A relative path inside the bucket: plain segments, no `..`, `.`, leading `/` or backslash. */
export function isBucketRelativePath(value: string): boolean {
  if (value.length === 0 || value.length > 1024 || value.includes('\0') || value.includes('\\')) return false;
  return value.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

const bucketPath = z
  .string({ error: 'must be a relative path in the bucket' })
  .refine(isBucketRelativePath, 'must be a relative path in the bucket (no "..", no leading "/", no empty segment)');

const workspaceEntrySchema = z.strictObject({
  path: bucketPath,
  permissionMode: z.enum(permissionModes, { error: `must be one of ${permissionModes.join(', ')}` }),
  // Checked separately so that `false`, `null` and an object each get a clear message.
  sandbox: z.unknown().optional(),
});

/** A workspace as written: an omitted `sandbox` is the agent's, `false` none (read-only view), `null` none (direct bucket). */
export interface WorkspaceConfig {
  path: string;
  permissionMode: PermissionMode;
  sandbox?: SandboxLimits | false | null;
}

export const workspaceNamePattern = /^[a-z][a-z0-9_]{0,31}$/;

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

const skillDescription = z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(1024, 'must be at most 1024 characters');
const inlineSkillSchema = z.strictObject({
  description: skillDescription,
  instructions: z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(100_000, 'must be at most 100000 characters'),
});
const fileSkillSchema = z.strictObject({ description: skillDescription, file: bucketPath });

/** A skill: its instructions inline, or a file in the bucket that holds them. */
export type SkillConfig = z.infer<typeof inlineSkillSchema> | z.infer<typeof fileSkillSchema>;

export const skillNamePattern = /^[a-z][a-z0-9_-]{0,63}$/;

function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, prefix: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw zodIssueError(prefix, parsed.error);
  return parsed.data;
}

function requireObject(value: unknown, path: string, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidRequestError(`${path} must be an object (${what})`);
  }
  return value as Record<string, unknown>;
}

/** Validate a sandbox object (`config.sandbox` or `config.workspace.<name>.sandbox`) and fill defaults. */
export function validateSandboxConfig(value: unknown, path = 'config.sandbox'): SandboxLimits {
  requireObject(value, path, 'the sandbox limits: timeoutMs, maxOutputBytes, environment, network');
  return parseOrThrow(sandboxLimitsSchema, value, path);
}

/** Validate `config.workspace`: workspace name to `{path, permissionMode, sandbox?}`. */
export function validateWorkspaceConfig(value: unknown, path = 'config.workspace'): Record<string, WorkspaceConfig> {
  const entries = requireObject(value, path, 'workspace name to workspace');
  const workspaces: Record<string, WorkspaceConfig> = {};
  for (const [name, entry] of Object.entries(entries)) {
    const entryPath = `${path}.${name}`;
    if (!workspaceNamePattern.test(name)) {
      throw new InvalidRequestError(`${entryPath} is not a valid workspace name (a lowercase letter, then up to 31 lowercase letters, digits or underscores)`);
    }
    requireObject(entry, entryPath, 'a workspace: {path, permissionMode, sandbox?}');
    const parsed = parseOrThrow(workspaceEntrySchema, entry, entryPath);
    const workspace: WorkspaceConfig = { path: parsed.path, permissionMode: parsed.permissionMode };
    if (parsed.sandbox === false || parsed.sandbox === null) {
      workspace.sandbox = parsed.sandbox;
    } else if (parsed.sandbox !== undefined) {
      if (typeof parsed.sandbox !== 'object' || Array.isArray(parsed.sandbox)) {
        throw new InvalidRequestError(`${entryPath}.sandbox must be omitted (the agent's sandbox), false (no sandbox, read-only view), null (no sandbox, direct bucket access) or a sandbox object`);
      }
      workspace.sandbox = validateSandboxConfig(parsed.sandbox, `${entryPath}.sandbox`);
    }
    workspaces[name] = workspace;
  }
  refuseNestedWorkspaces(workspaces, path);
  return workspaces;
}

/**
 * A workspace folder inside another workspace of the same agent is refused: bash in the outer
 * one could replace the inner folder (with a symlink to `/`, say) under the inner one's tools.
 * Equal paths are allowed: two views of one folder, neither inside the other.
 */
function refuseNestedWorkspaces(workspaces: Record<string, WorkspaceConfig>, path: string): void {
  const entries = Object.entries(workspaces);
  for (const [innerName, inner] of entries) {
    for (const [outerName, outer] of entries) {
      if (inner.path.startsWith(`${outer.path}/`)) {
        throw new InvalidRequestError(`${path}.${innerName}.path "${inner.path}" is inside "${outer.path}", the folder of workspace "${outerName}"; workspaces of one agent must not be nested`);
      }
    }
  }
}

/** Validate `config.subagent`: `{agents: {<agentId>: {description}}, maxDepth?}`. */
export function validateSubagentConfig(value: unknown, path = 'config.subagent'): SubagentConfig {
  requireObject(value, path, 'subagent settings: {agents, maxDepth?}');
  const parsed = parseOrThrow(subagentSchema, value, path);
  for (const agentId of Object.keys(parsed.agents)) {
    if (!agentIdPattern.test(agentId)) throw new InvalidRequestError(`${path}.agents.${agentId} is not a valid agent id`);
  }
  return parsed;
}

/** Validate `config.skills`: skill name to `{description, instructions}` or `{description, file}`. */
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
