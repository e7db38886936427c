/**
 * What the async coordinator hands the `execute` of a tool configured `async: true` (as
 * `options.asyncTool`): the row its result will settle, and where an outside worker completes
 * it. A tool that dispatches work elsewhere passes both on; a tool that runs here ignores them.
 */
export interface AsyncToolOptions {
  resultId: string;
  /** `/async-tools/{resultId}/complete`, relative to the agent service. */
  completePath: string;
}
