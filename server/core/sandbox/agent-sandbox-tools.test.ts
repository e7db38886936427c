import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildAgentSandboxTools } from './agent-sandbox-tools.js';
import type { BubblewrapStatus } from './bubblewrap-probe.js';
import { validateSandboxConfig, validateWorkspaceConfig } from './sandbox-config-schema.js';

const noBubblewrap: BubblewrapStatus = { available: false, reason: 'not used in this test' };
const limits = validateSandboxConfig({ timeoutMs: 20_000 });
let bucket: string;

beforeEach(async () => {
  bucket = await mkdtemp(path.join(tmpdir(), 'agent-sandbox-tools-'));
});

afterEach(async () => {
  await rm(bucket, { recursive: true, force: true });
});

describe('buildAgentSandboxTools', () => {
  it('gives no tool without a sandbox, and only a stateless bash with a sandbox and no workspace', () => {
    expect(Object.keys(buildAgentSandboxTools({ config: {}, bucketFolder: bucket, bubblewrap: noBubblewrap }))).toEqual([]);
    expect(Object.keys(buildAgentSandboxTools({ config: { sandbox: limits }, bucketFolder: bucket, bubblewrap: noBubblewrap }))).toEqual(['bash']);
  });

  it('names tools plainly for one workspace and <workspace>__<tool> for several', () => {
    const one = validateWorkspaceConfig({ notes: { path: 'notes', permissionMode: 'auto' } });
    expect(Object.keys(buildAgentSandboxTools({ config: { sandbox: limits, workspace: one }, bucketFolder: bucket, bubblewrap: noBubblewrap }))).toEqual(['read', 'write', 'edit', 'glob', 'grep', 'bash']);
    const several = validateWorkspaceConfig({ notes: { path: 'notes', permissionMode: 'auto' }, archive: { path: 'archive', permissionMode: 'auto', sandbox: false } });
    expect(Object.keys(buildAgentSandboxTools({ config: { sandbox: limits, workspace: several }, bucketFolder: bucket, bubblewrap: noBubblewrap }))).toEqual([
      'notes__read', 'notes__write', 'notes__edit', 'notes__glob', 'notes__grep', 'notes__bash', 'archive__read', 'archive__glob',
    ]);
  });
});
