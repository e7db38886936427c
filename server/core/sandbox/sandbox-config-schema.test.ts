import { describe, expect, it } from 'vitest';
import { messageOf } from '../test-support/invalid-request-message.js';
import { validateSandboxConfig, validateWorkspaceConfig } from './sandbox-config-schema.js';

describe('validateSandboxConfig', () => {
  it('fills defaults', () => {
    expect(validateSandboxConfig({})).toEqual({ timeoutMs: 30_000, maxOutputBytes: 65_536, environment: [], network: false });
  });

  it('names the offending path', () => {
    expect(messageOf(() => validateSandboxConfig({ timeoutMs: 5 }))).toBe('config.sandbox.timeoutMs must be an integer from 100 to 600000');
    expect(messageOf(() => validateSandboxConfig({ timeoutMs: 1000.5 }))).toBe('config.sandbox.timeoutMs must be an integer from 100 to 600000');
    expect(messageOf(() => validateSandboxConfig({ maxOutputBytes: 'big' }))).toBe('config.sandbox.maxOutputBytes must be an integer from 1024 to 10485760');
    expect(messageOf(() => validateSandboxConfig({ environment: ['OK', 'NOT-OK'] }))).toBe('config.sandbox.environment.1 must be an environment variable name (letters, digits, underscores)');
    expect(messageOf(() => validateSandboxConfig({ environment: ['GIT_AUTHOR_NAME', 'HARNESS_ADMIN_SECRET'] }))).toBe('config.sandbox.environment.1 names a service variable; HARNESS_* and NATS_* are never passed to bash');
    expect(messageOf(() => validateSandboxConfig({ environment: ['nats_token'] }))).toBe('config.sandbox.environment.0 names a service variable; HARNESS_* and NATS_* are never passed to bash');
    expect(messageOf(() => validateSandboxConfig({ network: 'yes' }))).toBe('config.sandbox.network must be true or false');
    expect(messageOf(() => validateSandboxConfig({ memory: 1 }))).toBe('config.sandbox.memory is not allowed here');
    expect(messageOf(() => validateSandboxConfig([]))).toMatch(/^config\.sandbox must be an object/);
  });
});

describe('validateWorkspaceConfig', () => {
  it('accepts each sandbox form', () => {
    const workspaces = validateWorkspaceConfig({
      notes: { path: 'notes', permissionMode: 'auto' },
      archive: { path: 'old/archive', permissionMode: 'read-only', sandbox: false },
      bucket: { path: 'shared', permissionMode: 'ask', sandbox: null },
      build: { path: 'build', permissionMode: 'ask-writes', sandbox: { network: true } },
    });
    expect(workspaces.notes).toEqual({ path: 'notes', permissionMode: 'auto' });
    expect(workspaces.archive?.sandbox).toBe(false);
    expect(workspaces.bucket?.sandbox).toBeNull();
    expect(workspaces.build?.sandbox).toEqual({ timeoutMs: 30_000, maxOutputBytes: 65_536, environment: [], network: true });
  });

  it('refuses bad names, paths, modes and sandboxes with the path', () => {
    expect(messageOf(() => validateWorkspaceConfig({ Notes: { path: 'a', permissionMode: 'auto' } }))).toMatch(/^config\.workspace\.Notes is not a valid workspace name/);
    expect(messageOf(() => validateWorkspaceConfig({ notes: { path: '../a', permissionMode: 'auto' } }))).toMatch(/^config\.workspace\.notes\.path must be a relative path in the bucket/);
    expect(messageOf(() => validateWorkspaceConfig({ notes: { path: '/a', permissionMode: 'auto' } }))).toMatch(/^config\.workspace\.notes\.path must be a relative path/);
    expect(messageOf(() => validateWorkspaceConfig({ notes: { path: 'a', permissionMode: 'sometimes' } }))).toBe('config.workspace.notes.permissionMode must be one of read-only, ask, ask-writes, auto');
    expect(messageOf(() => validateWorkspaceConfig({ notes: { path: 'a' } }))).toBe('config.workspace.notes.permissionMode must be one of read-only, ask, ask-writes, auto');
    expect(messageOf(() => validateWorkspaceConfig({ notes: { path: 'a', permissionMode: 'auto', sandbox: true } }))).toMatch(/^config\.workspace\.notes\.sandbox must be omitted/);
    expect(messageOf(() => validateWorkspaceConfig({ notes: { path: 'a', permissionMode: 'auto', sandbox: { timeoutMs: 0 } } }))).toBe('config.workspace.notes.sandbox.timeoutMs must be an integer from 100 to 600000');
  });
});

describe('validateWorkspaceConfig: nesting', () => {
  it('refuses a workspace folder inside another workspace of the same agent, naming the field', () => {
    expect(messageOf(() => validateWorkspaceConfig({ outer: { path: 'w', permissionMode: 'auto' }, inner: { path: 'w/link', permissionMode: 'auto' } }))).toBe(
      'config.workspace.inner.path "w/link" is inside "w", the folder of workspace "outer"; workspaces of one agent must not be nested',
    );
    expect(messageOf(() => validateWorkspaceConfig({ deep: { path: 'a/b/c', permissionMode: 'auto', sandbox: false }, top: { path: 'a', permissionMode: 'read-only' } }))).toMatch(/^config\.workspace\.deep\.path/);
  });

  it('allows siblings, look-alike prefixes and two views of one folder', () => {
    expect(Object.keys(validateWorkspaceConfig({ one: { path: 'w', permissionMode: 'auto' }, two: { path: 'w2/x', permissionMode: 'auto' }, three: { path: 'v/w', permissionMode: 'auto' } }))).toHaveLength(3);
    expect(Object.keys(validateWorkspaceConfig({ view: { path: 'lib', permissionMode: 'auto', sandbox: false }, direct: { path: 'lib', permissionMode: 'auto', sandbox: null } }))).toHaveLength(2);
  });
});
