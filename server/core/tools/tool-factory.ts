import type { ToolSet } from 'ai';
import type { ToolContext } from './tool-context.js';

/** Every external tool is built the same way: its own options and the turn's context in, tools out. */
export type ToolFactory = (toolConfig: Record<string, unknown>, context: ToolContext) => ToolSet;
