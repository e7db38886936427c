import type { PermissionMode } from './sandbox-config-schema.js';

/** The sandbox tools, in the order they are offered to the model. */
export const sandboxToolNames = ['read', 'write', 'edit', 'glob', 'grep', 'bash'] as const;
export type SandboxToolName = (typeof sandboxToolNames)[number];

/** How a workspace's files are reached (see effectiveWorkspaces). */
export type WorkspaceAccess = 'sandboxed' | 'read-only-view' | 'direct-bucket';

const readTools: readonly SandboxToolName[] = ['read', 'glob', 'grep'];
const writeTools: readonly SandboxToolName[] = ['write', 'edit', 'bash'];

/**
 * The tools a workspace offers: the full set with a sandbox, only `read` and
 * `glob` without one; `read-only` drops the tools that can write, bash included, because a
 * shell in a writable folder is a write tool.
 */
export function workspaceToolNames(access: WorkspaceAccess, permissionMode: PermissionMode): SandboxToolName[] {
  if (access !== 'sandboxed') return ['read', 'glob'];
  if (permissionMode === 'read-only') return [...readTools];
  return [...sandboxToolNames];
}

/** Whether a workspace tool needs the user's approval under a permission mode. */
export function toolNeedsApproval(permissionMode: PermissionMode, toolName: SandboxToolName): boolean {
  switch (permissionMode) {
    case 'read-only':
    case 'auto':
      return false;
    case 'ask':
      return true;
    case 'ask-writes':
      return writeTools.includes(toolName);
  }
}
