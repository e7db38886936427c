import type { ToolSet } from 'ai';
import type { Logger } from '../logger.js';
import type { BubblewrapStatus } from './bubblewrap-probe.js';
import { type SandboxedAgentConfig, effectiveWorkspaces } from './effective-workspaces.js';
import type { SandboxRuntime } from './sandbox-runtime.js';
import { buildStatelessBashTool } from './stateless-bash-tool.js';
import { buildWorkspaceTools } from './workspace-tools.js';

export interface AgentSandboxToolsOptions {
  /** The validated `sandbox` and `workspace` parts of the agent config. */
  config: SandboxedAgentConfig;
  /** Host folder of the agent's filesystem bucket; workspace paths are relative to it. */
  bucketFolder: string;
  bubblewrap: BubblewrapStatus;
  logger?: Logger;
  environment?: NodeJS.ProcessEnv;
  /** The operator's settings, cgroups and the account's disk quota. */
  runtime?: SandboxRuntime;
}

/**
 * Every sandbox tool an agent gets: none without a sandbox or workspace; only
 * a stateless `bash` with a sandbox and no workspace; otherwise each workspace's tools,
 * named plainly for one workspace and `<workspace>__<tool>` for several.
 */
export function buildAgentSandboxTools(options: AgentSandboxToolsOptions): ToolSet {
  const workspaces = effectiveWorkspaces(options.config);
  if (workspaces.length === 0) {
    return options.config.sandbox
      ? buildStatelessBashTool({ limits: options.config.sandbox, bubblewrap: options.bubblewrap, logger: options.logger, environment: options.environment, runtime: options.runtime })
      : {};
  }
  const tools: ToolSet = {};
  for (const workspace of workspaces) {
    Object.assign(
      tools,
      buildWorkspaceTools({
        workspaceName: workspace.name,
        root: { base: options.bucketFolder, path: workspace.path },
        access: workspace.access,
        permissionMode: workspace.permissionMode,
        limits: workspace.sandbox,
        bubblewrap: options.bubblewrap,
        prefixToolNames: workspaces.length > 1,
        logger: options.logger,
        environment: options.environment,
        runtime: options.runtime,
      }),
    );
  }
  return tools;
}
