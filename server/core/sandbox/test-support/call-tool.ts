import type { ToolSet } from 'ai';

/** Runs a tool of `tools` the way the model loop would, outside a turn. */
export async function callTool(tools: ToolSet, name: string, input: unknown): Promise<unknown> {
  const execute = tools[name]?.execute;
  if (!execute) throw new Error(`no tool ${name}`);
  return execute(input, { toolCallId: 'call-1', messages: [], context: undefined });
}
