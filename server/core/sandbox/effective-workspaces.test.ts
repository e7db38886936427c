import { describe, expect, it } from 'vitest';
import { effectiveWorkspaces } from './effective-workspaces.js';
import { validateSandboxConfig, validateWorkspaceConfig } from './sandbox-config-schema.js';
import { toolNeedsApproval } from './workspace-permissions.js';

const agentSandbox = validateSandboxConfig({ timeoutMs: 5000 });

describe('effectiveWorkspaces', () => {
  it('resolves each workspace sandbox form to its access and tools', () => {
    const workspace = validateWorkspaceConfig({
      inherits: { path: 'a', permissionMode: 'auto' },
      own: { path: 'b', permissionMode: 'ask', sandbox: { network: true } },
      view: { path: 'c', permissionMode: 'auto', sandbox: false },
      bucket: { path: 'd', permissionMode: 'auto', sandbox: null },
      locked: { path: 'e', permissionMode: 'read-only' },
    });
    const byName = Object.fromEntries(effectiveWorkspaces({ sandbox: agentSandbox, workspace }).map((entry) => [entry.name, entry]));
    expect(byName.inherits).toMatchObject({ access: 'sandboxed', sandbox: agentSandbox, tools: ['read', 'write', 'edit', 'glob', 'grep', 'bash'] });
    expect(byName.own).toMatchObject({ access: 'sandboxed', sandbox: { network: true, timeoutMs: 30_000 } });
    expect(byName.view).toMatchObject({ access: 'read-only-view', sandbox: null, tools: ['read', 'glob'] });
    expect(byName.bucket).toMatchObject({ access: 'direct-bucket', sandbox: null, tools: ['read', 'glob'] });
    expect(byName.locked).toMatchObject({ access: 'sandboxed', tools: ['read', 'glob', 'grep'] });
  });

  it('gives an omitted sandbox the read-only view when the agent has no sandbox', () => {
    const workspace = validateWorkspaceConfig({ notes: { path: 'notes', permissionMode: 'auto' } });
    expect(effectiveWorkspaces({ workspace })).toMatchObject([{ name: 'notes', access: 'read-only-view', sandbox: null }]);
    expect(effectiveWorkspaces({ sandbox: agentSandbox })).toEqual([]);
  });
});

describe('toolNeedsApproval', () => {
  it('follows the permission mode', () => {
    expect(toolNeedsApproval('auto', 'bash')).toBe(false);
    expect(toolNeedsApproval('ask', 'read')).toBe(true);
    expect(toolNeedsApproval('ask-writes', 'read')).toBe(false);
    expect(toolNeedsApproval('ask-writes', 'grep')).toBe(false);
    expect(toolNeedsApproval('ask-writes', 'edit')).toBe(true);
    expect(toolNeedsApproval('ask-writes', 'bash')).toBe(true);
    expect(toolNeedsApproval('read-only', 'read')).toBe(false);
  });
});
