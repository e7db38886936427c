import type { PermissionMode, SandboxLimits, WorkspaceConfig } from './sandbox-config-schema.js';
import { type SandboxToolName, type WorkspaceAccess, workspaceToolNames } from './workspace-permissions.js';

/** A workspace with its sandbox resolved: what the turn engine builds tools from. */
export interface EffectiveWorkspace {
  name: string;
  /** Relative path of the workspace folder in the bucket. */
  path: string;
  permissionMode: PermissionMode;
  access: WorkspaceAccess;
  /** The limits `bash` runs with; null when the workspace has no sandbox. */
  sandbox: SandboxLimits | null;
  /** The tools this workspace offers, before naming (see sandboxToolName). */
  tools: SandboxToolName[];
}

/** The validated parts of an agent config this resolution reads. */
export interface SandboxedAgentConfig {
  sandbox?: SandboxLimits;
  workspace?: Record<string, WorkspaceConfig>;
}

/**
 * Resolve each workspace's effective sandbox and access. An omitted `sandbox` means the
 * agent's sandbox; when the agent has none either, the workspace has none and gets the
 * read-only view, as with `false`. `null` is no sandbox with direct bucket access.
 */
export function effectiveWorkspaces(config: SandboxedAgentConfig): EffectiveWorkspace[] {
  return Object.entries(config.workspace ?? {}).map(([name, workspace]) => {
    const declared = workspace.sandbox === undefined ? (config.sandbox ?? false) : workspace.sandbox;
    const access: WorkspaceAccess = declared === null ? 'direct-bucket' : declared === false ? 'read-only-view' : 'sandboxed';
    const sandbox = declared === null || declared === false ? null : declared;
    return {
      name,
      path: workspace.path,
      permissionMode: workspace.permissionMode,
      access,
      sandbox,
      tools: workspaceToolNames(access, workspace.permissionMode),
    };
  });
}
