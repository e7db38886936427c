import { describe, expect, it } from 'vitest';
import type { BubblewrapStatus } from './bubblewrap-probe.js';
import { validateSandboxConfig } from './sandbox-config-schema.js';
import { defaultSandboxSettings } from './sandbox-settings.js';
import { buildStatelessBashTool } from './stateless-bash-tool.js';
import { callTool } from './test-support/call-tool.js';

const noBubblewrap: BubblewrapStatus = { available: false, reason: 'not used in this test' };
const limits = validateSandboxConfig({ timeoutMs: 20_000 });
// This test is about the tool wrapper: it runs bash without bubblewrap, by the operator's opt-in.
const runtime = { settings: { ...defaultSandboxSettings, allowUnsandboxedBash: true } };

describe('buildStatelessBashTool', () => {
  it('runs each call in a fresh folder', async () => {
    const tools = buildStatelessBashTool({ limits, bubblewrap: noBubblewrap, runtime });
    await callTool(tools, 'bash', { command: 'touch left-behind' });
    await expect(callTool(tools, 'bash', { command: 'ls -A' })).resolves.toMatchObject({ exitCode: 0, stdout: '' });
  });
});
