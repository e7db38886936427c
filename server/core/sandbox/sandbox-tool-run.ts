import type { Logger } from '../logger.js';
import type { BashResult } from './bash-runner.js';
import { SandboxToolError } from './sandbox-tool-error.js';

/** What a tool returns to the model when it refuses or fails: the turn goes on. */
export interface ToolErrorOutput {
  error: string;
}

/** Which call is running, for the log line of a refusal or failure. */
export interface SandboxToolRunContext {
  toolName: string;
  workspaceName?: string;
  logger?: Logger;
}

/** Run a tool body; a refusal or failure becomes `{error}` for the model, and is logged. */
export async function runSandboxTool<T>(context: SandboxToolRunContext, body: () => Promise<T>): Promise<T | ToolErrorOutput> {
  const started = performance.now();
  try {
    return await body();
  } catch (error) {
    const durationMs = Math.round(performance.now() - started);
    const fields = { event: 'sandbox-tool', tool: context.toolName, workspace: context.workspaceName, durationMs };
    if (error instanceof SandboxToolError) {
      context.logger?.info({ ...fields, status: error.kind }, `sandbox tool ${context.toolName} refused`);
      return { error: error.message };
    }
    // Unexpected errors can carry host paths: log the code, tell the model only that it failed.
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    context.logger?.error({ ...fields, status: code ?? 'internal' }, `sandbox tool ${context.toolName} failed`);
    return { error: `${context.toolName} failed unexpectedly${code ? ` (${code})` : ''}.` };
  }
}

/** A bash call that ran into a limit carries `error` naming it, beside its output. */
export function bashOutput(result: BashResult): BashResult | (BashResult & ToolErrorOutput) {
  if (result.limitsHit.length === 0) return result;
  return { error: result.limitsHit.map((hit) => hit.message).join(' '), ...result };
}
