import { type ToolSet, tool } from 'ai';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import { runBash } from './bash-runner.js';
import type { BubblewrapStatus } from './bubblewrap-probe.js';
import { editWorkspaceFile } from './edit-file.js';
import { globWorkspaceFiles } from './glob-files.js';
import { grepWorkspaceFiles } from './grep-files.js';
import { readWorkspaceFile } from './read-file.js';
import type { PermissionMode, SandboxLimits } from './sandbox-config-schema.js';
import type { SandboxRuntime } from './sandbox-runtime.js';
import { bashOutput, runSandboxTool, type SandboxToolRunContext } from './sandbox-tool-run.js';
import { type SandboxToolName, type WorkspaceAccess, toolNeedsApproval, workspaceToolNames } from './workspace-permissions.js';
import { type WorkspaceRoot, withWorkspaceRoot, workspaceHostPath } from './workspace-root.js';
import { writeWorkspaceFile } from './write-file.js';

/**
 * The model-facing name of a workspace tool: the plain name (`read`) when the agent has
 * exactly one workspace, `<workspace>__<tool>` (`docs__read`) when it has several. Tool
 * names never contain `__`, so the part after the last `__` is always the tool.
 */
export function sandboxToolName(toolName: SandboxToolName, workspaceName: string, prefixed: boolean): string {
  return prefixed ? `${workspaceName}__${toolName}` : toolName;
}

const defaultFileToolLimits: SandboxLimits = { timeoutMs: 30_000, maxOutputBytes: 65_536, environment: [], network: false };

export interface WorkspaceToolsOptions {
  workspaceName: string;
  /**
   * The workspace folder: the account's folder in the bucket and the workspace path under
   * it (reached without following symlinks), or a host folder trusted as a whole.
   */
  root: WorkspaceRoot;
  access: WorkspaceAccess;
  permissionMode: PermissionMode;
  /** The workspace's effective sandbox; null without one (then only read and glob exist). */
  limits: SandboxLimits | null;
  bubblewrap: BubblewrapStatus;
  /** Name tools `<workspace>__<tool>`: set when the agent has several workspaces. */
  prefixToolNames: boolean;
  /** Which tools need approval; default: what the permission mode says. */
  needsApproval?: (toolName: SandboxToolName) => boolean;
  logger?: Logger;
  /** Where bash's allow-listed variables are read from; default process.env. */
  environment?: NodeJS.ProcessEnv;
  runtime?: SandboxRuntime;
}

/** The sandbox tools of one workspace, scoped to its folder and named for the model. */
export function buildWorkspaceTools(options: WorkspaceToolsOptions): ToolSet {
  const { workspaceName, root, access, permissionMode } = options;
  const limits = options.limits ?? defaultFileToolLimits;
  const needsApproval = options.needsApproval ?? ((toolName: SandboxToolName) => toolNeedsApproval(permissionMode, toolName));
  const readOnly = access !== 'sandboxed' || permissionMode === 'read-only';
  const where = `the workspace "${workspaceName}"`;
  const context = (toolName: SandboxToolName): SandboxToolRunContext => ({ toolName: sandboxToolName(toolName, workspaceName, options.prefixToolNames), workspaceName, logger: options.logger });

  const definitions: Record<SandboxToolName, () => ToolSet[string]> = {
    read: () =>
      tool({
        description: `Read a text file in ${where}. Paths are relative to the workspace root. Returns up to \`limit\` lines from line \`offset\` (1-based), the total line count, and whether more was left out.`,
        inputSchema: z.object({
          path: z.string().min(1).describe('File path relative to the workspace root'),
          offset: z.number().int().min(1).optional().describe('First line to return, from 1'),
          limit: z.number().int().min(1).max(10_000).optional().describe('Number of lines to return (default 2000)'),
        }),
        needsApproval: needsApproval('read'),
        execute: (input) => runSandboxTool(context('read'), () => readWorkspaceFile({ root, ...input, maxBytes: limits.maxOutputBytes })),
      }),
    write: () =>
      tool({
        description: `Create or overwrite a text file in ${where}, creating folders as needed. Returns the number of bytes written.`,
        inputSchema: z.object({
          path: z.string().min(1).describe('File path relative to the workspace root'),
          content: z.string().describe('The whole new content of the file'),
        }),
        needsApproval: needsApproval('write'),
        execute: (input) => runSandboxTool(context('write'), () => writeWorkspaceFile({ root, ...input, readOnly, diskQuota: options.runtime?.diskQuota })),
      }),
    edit: () =>
      tool({
        description: `Replace exact text in a file in ${where}. oldText must occur exactly once (include surrounding lines to make it unique) unless replaceAll is true.`,
        inputSchema: z.object({
          path: z.string().min(1).describe('File path relative to the workspace root'),
          oldText: z.string().min(1).describe('Exact text to replace, including whitespace'),
          newText: z.string().describe('Replacement text'),
          replaceAll: z.boolean().optional().describe('Replace every occurrence'),
        }),
        needsApproval: needsApproval('edit'),
        execute: (input) => runSandboxTool(context('edit'), () => editWorkspaceFile({ root, ...input, readOnly, diskQuota: options.runtime?.diskQuota })),
      }),
    glob: () =>
      tool({
        description: `Find files in ${where} by glob pattern (e.g. "**/*.md"), relative to the workspace root or to \`path\`. Returns matching file paths.`,
        inputSchema: z.object({
          pattern: z.string().min(1).describe('Glob pattern, relative'),
          path: z.string().optional().describe('Folder to search from, relative to the workspace root'),
        }),
        needsApproval: needsApproval('glob'),
        execute: (input) => runSandboxTool(context('glob'), () => globWorkspaceFiles({ root, ...input })),
      }),
    grep: () =>
      tool({
        description: `Search text files in ${where} for lines matching a regular expression. Returns {path, line, text} for each match.`,
        inputSchema: z.object({
          pattern: z.string().min(1).describe('Regular expression (ripgrep syntax, like JavaScript without look-around or backreferences)'),
          path: z.string().optional().describe('File or folder to search, relative to the workspace root'),
          glob: z.string().optional().describe('Only search files matching this glob, e.g. "**/*.ts"'),
          ignoreCase: z.boolean().optional(),
        }),
        needsApproval: needsApproval('grep'),
        execute: (input) => runSandboxTool(context('grep'), () => grepWorkspaceFiles({ root, ...input, timeoutMs: limits.timeoutMs })),
      }),
    bash: () =>
      tool({
        description: `Run a bash command in ${where}${options.bubblewrap.available ? ', mounted at /workspace (the working folder and HOME)' : ' (the working folder)'}. Timeout ${limits.timeoutMs} ms, output cap ${limits.maxOutputBytes} bytes, network ${limits.network ? 'on' : 'off'}.`,
        inputSchema: z.object({ command: z.string().min(1).describe('The bash command line') }),
        needsApproval: needsApproval('bash'),
        execute: ({ command }, { abortSignal }) => runSandboxTool(context('bash'), () =>
          // The folder is opened (and made, if the workspace was never written) without following
          // symlinks, and bubblewrap binds that open folder, never a path looked up again later.
          withWorkspaceRoot(
            root,
            async (folder) => {
              const result = await runBash({ command, workingFolder: workspaceHostPath(root), workingFolderHandle: folder.fd, limits, bubblewrap: options.bubblewrap, environment: options.environment, ...options.runtime, signal: abortSignal });
              return bashOutput(result);
            },
            true,
          ),
        ),
      }),
  };

  const tools: ToolSet = {};
  for (const toolName of workspaceToolNames(access, permissionMode)) {
    tools[sandboxToolName(toolName, workspaceName, options.prefixToolNames)] = definitions[toolName]();
  }
  return tools;
}
