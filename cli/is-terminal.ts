/**
 * Whether a stream of the CLI's context is a terminal: only then are Ink views, spinners and
 * questions shown. Pipes, files and the test streams (which have no `isTTY`) get plain lines.
 */
export function isTerminal(stream: unknown): boolean {
  return Boolean((stream as { isTTY?: boolean }).isTTY);
}
