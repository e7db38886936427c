import { z } from 'zod';
import { integerFrom, parseOrThrow, requireObject } from '../config-parsing/config-section-parsing.js';
import { InvalidRequestError } from '../errors.js';
import { bucketPathSchema } from './bucket-path.js';
import { isServiceVariable } from './sandbox-settings.js';

/**
 * Shapes of `config.sandbox` and `config.workspace`. Each validator throws an
 * InvalidRequestError whose message names the offending path, e.g.
 * `config.sandbox.timeoutMs must be an integer from 100 to 600000`.
 */

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

const workspaceEntrySchema = z.strictObject({
  path: bucketPathSchema,
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
