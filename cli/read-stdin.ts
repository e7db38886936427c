/**
 * Reads standard input to its end. At a terminal, reads one line instead, so a user who
 * types or pastes a key and presses Enter is not left waiting for Ctrl-D.
 */
export async function readStdin(stdin: NodeJS.ReadableStream & { isTTY?: boolean }): Promise<string> {
  const chunks: string[] = [];
  for await (const chunk of stdin) {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    if (stdin.isTTY && chunks.join('').includes('\n')) break;
  }
  const text = chunks.join('');
  return stdin.isTTY ? text.slice(0, text.indexOf('\n') + 1 || undefined) : text;
}

/** Drops one trailing newline (`\n` or `\r\n`), as `echo` and editors add one. */
export function trimTrailingNewline(text: string): string {
  return text.replace(/\r?\n$/, '');
}
