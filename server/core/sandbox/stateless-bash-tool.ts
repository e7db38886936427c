import { type ToolSet, tool } from 'ai';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import { runBash } from './bash-runner.js';
import type { BubblewrapStatus } from './bubblewrap-probe.js';
import type { SandboxLimits } from './sandbox-config-schema.js';
import type { SandboxRuntime } from './sandbox-runtime.js';
import { bashOutput, runSandboxTool } from './sandbox-tool-run.js';

export interface StatelessBashToolOptions {
  limits: SandboxLimits;
  bubblewrap: BubblewrapStatus;
  /** Whether a call needs approval (no workspace, so no permission mode; default false). */
  needsApproval?: boolean;
  logger?: Logger;
  environment?: NodeJS.ProcessEnv;
  runtime?: SandboxRuntime;
}

/** `bash` for an agent with a sandbox and no workspace: each call gets a fresh, deleted-after folder. */
export function buildStatelessBashTool(options: StatelessBashToolOptions): ToolSet {
  const { limits } = options;
  return {
    bash: tool({
      description: `Run a bash command in a fresh empty folder that is deleted afterwards; nothing persists between calls. Timeout ${limits.timeoutMs} ms, output cap ${limits.maxOutputBytes} bytes, network ${limits.network ? 'on' : 'off'}.`,
      inputSchema: z.object({ command: z.string().min(1).describe('The bash command line') }),
      needsApproval: options.needsApproval ?? false,
      execute: ({ command }, { abortSignal }) => runSandboxTool({ toolName: 'bash', logger: options.logger }, async () => {
        const result = await runBash({ command, limits, bubblewrap: options.bubblewrap, environment: options.environment, ...options.runtime, signal: abortSignal });
        return bashOutput(result);
      }),
    }),
  };
}
