import { NoSuchToolError, type ToolCallRepairFunction, type ToolSet } from 'ai';

/** Why a group of tool names is missing from a turn: every name starting with `prefix`. */
interface MissingGroup {
  prefix: string;
  /** The error a call of `toolName` in the group answers. */
  describe: (toolName: string) => string;
}

/**
 * The tools one turn could not offer, and why: an MCP server that could not be reached when the
 * turn started offers no tools (or only those it is known for). A model may still call one (it
 * knew the name from an earlier turn or its instructions); that call then answers the reason as
 * the tool's error, instead of the AI SDK's "unavailable tool" that names nothing. Filled by the
 * tool sources while the turn builds its tools.
 */
export class UnavailableTools {
  private readonly groups: MissingGroup[] = [];

  /** Calls of tools named `<prefix>...` that the turn does not have answer `describe(toolName)`. */
  addPrefix(prefix: string, describe: (toolName: string) => string): void {
    this.groups.push({ prefix, describe });
  }

  /** The reason a call of `toolName` cannot run, when it belongs to a missing group. */
  reasonFor(toolName: string): string | undefined {
    return this.groups.find((group) => toolName.startsWith(group.prefix))?.describe(toolName);
  }

  get empty(): boolean {
    return this.groups.length === 0;
  }

  /**
   * For `streamText`'s `repairToolCall`: a call of an unknown tool in a missing group
   * fails with its reason (the SDK turns it into the call's tool error, `Error repairing tool
   * call: <reason>`, and the turn goes on). Anything else keeps the SDK's own error.
   */
  repairFunction(): ToolCallRepairFunction<ToolSet> {
    return async ({ toolCall, error }) => {
      const reason = NoSuchToolError.isInstance(error) ? this.reasonFor(toolCall.toolName) : undefined;
      if (reason === undefined) return null;
      throw new UnavailableToolError(reason);
    };
  }
}

/** A call of a tool the turn could not offer; the message names where it comes from and why it is missing. */
export class UnavailableToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnavailableToolError';
  }
}
