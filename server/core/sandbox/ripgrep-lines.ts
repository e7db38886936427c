import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { SandboxToolError } from './sandbox-tool-error.js';

/** A text to search, by name; `load` reads it (race-free) when its turn comes, or throws a SandboxToolError to skip it. */
export interface SearchSource {
  name: string;
  load(): Promise<Buffer>;
}

export interface LineMatch {
  name: string;
  /** Line number in the source, from 1. */
  line: number;
  /** The whole line, without its line break. */
  text: string;
}

export interface RipgrepSearchRequest {
  pattern: string;
  ignoreCase: boolean;
  sources: SearchSource[];
  /** Stop after this many matches (one more is looked for, to tell `truncated`). */
  maxMatches: number;
  /** The whole search is killed past this. */
  timeoutMs: number;
  /** The ripgrep executable (default `rg` from PATH). */
  executable?: string;
}

export interface RipgrepSearchResult {
  matches: LineMatch[];
  truncated: boolean;
  /** Sources whose load refused (binary, too large, a link that leads out...). */
  skipped: number;
}

interface RipgrepMessage {
  type: string;
  data?: { line_number?: number; lines?: { text?: string; bytes?: string } };
}

/** Files read ahead of the one being written to ripgrep. */
const loadsAhead = 4;

function countLines(buffer: Buffer): number {
  let count = 0;
  for (let index = buffer.indexOf(10); index !== -1; index = buffer.indexOf(10, index + 1)) count += 1;
  return buffer.length > 0 && buffer[buffer.length - 1] !== 10 ? count + 1 : count;
}

/**
 * Search texts line by line with ripgrep, whose regex engine runs in time linear in the
 * input whatever the pattern (no backtracking), in a child process with a deadline, so a
 * pattern like `^(a+)+$` can neither stall the event loop nor run forever. The texts are
 * read by the caller (through fds, beneath the workspace root) and streamed to ripgrep's
 * stdin one after another; ripgrep never opens a file itself. Line numbers of the stream
 * are mapped back to each text.
 */
export async function searchLines(request: RipgrepSearchRequest): Promise<RipgrepSearchResult> {
  const args = ['--no-config', '--json', '--text', ...(request.ignoreCase ? ['--ignore-case'] : ['--case-sensitive']), '--regexp', request.pattern, '-'];
  const child = spawn(request.executable ?? 'rg', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const spawned = once(child, 'spawn').then(
    () => true,
    (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new SandboxToolError('invalid-input', 'grep needs ripgrep (rg), which is not installed on this service.');
      throw error;
    },
  );
  const exited = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  exited.catch(() => undefined);
  // Writes to a ripgrep that already quit (bad pattern, or killed) fail with EPIPE: expected.
  child.stdin.on('error', () => undefined);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 4096) stderr += chunk;
  });

  const starts: { firstLine: number; name: string }[] = [];
  const matches: LineMatch[] = [];
  let truncated = false;
  let skipped = 0;
  let timedOut = false;
  let finished = false;
  const stop = () => {
    finished = true;
    child.kill('SIGKILL');
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, request.timeoutMs);

  const sourceOf = (line: number) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if ((starts[middle] as { firstLine: number }).firstLine <= line) low = middle;
      else high = middle - 1;
    }
    return starts[low] as { firstLine: number; name: string };
  };

  const reading = (async () => {
    for await (const row of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
      if (finished) break;
      const message = JSON.parse(row) as RipgrepMessage;
      if (message.type !== 'match' || message.data?.line_number === undefined) continue;
      if (matches.length === request.maxMatches) {
        truncated = true;
        stop();
        break;
      }
      const lineNumber = message.data.line_number;
      const source = sourceOf(lineNumber);
      const lines = message.data.lines ?? {};
      const text = (lines.text ?? Buffer.from(lines.bytes ?? '', 'base64').toString('utf8')).replace(/\n$/, '');
      matches.push({ name: source.name, line: lineNumber - source.firstLine + 1, text });
    }
  })();

  // Loads run a few ahead of the writes, so reading files overlaps with ripgrep's search.
  type Loaded = { content: Buffer } | { error: unknown };
  const loads = new Map<number, Promise<Loaded>>();
  const prefetch = (index: number) => {
    const source = request.sources[index];
    if (source && !loads.has(index)) loads.set(index, source.load().then((content) => ({ content }), (error: unknown) => ({ error })));
  };
  const writing = (async () => {
    await spawned;
    let nextLine = 1;
    for (const [index, source] of request.sources.entries()) {
      if (finished || child.stdin.destroyed) break;
      for (let ahead = index; ahead < index + loadsAhead; ahead += 1) prefetch(ahead);
      const loaded = await (loads.get(index) as Promise<Loaded>);
      loads.delete(index);
      if ('error' in loaded) {
        if (!(loaded.error instanceof SandboxToolError)) throw loaded.error;
        skipped += 1;
        continue;
      }
      const content = loaded.content;
      if (content.length === 0) continue;
      starts.push({ firstLine: nextLine, name: source.name });
      nextLine += countLines(content);
      const ok = child.stdin.write(content) && (content[content.length - 1] === 10 || child.stdin.write('\n'));
      if (!ok && !child.stdin.destroyed) await Promise.race([once(child.stdin, 'drain'), exited]).catch(() => undefined);
    }
    child.stdin.end();
  })();

  try {
    await Promise.all([writing, reading]);
    const [code] = await exited;
    if (timedOut) {
      throw new SandboxToolError('timed-out', `grep took longer than ${request.timeoutMs} ms and was stopped; search a smaller folder or use a narrower glob.`);
    }
    if (!finished && code !== 0 && code !== 1) {
      const reason = stderr.replace(/^regex parse error:\s*/m, '').trim().split('\n').slice(-3).join(' ').trim();
      throw new SandboxToolError('invalid-input', `pattern is not a valid regular expression for grep (ripgrep syntax): ${reason || `ripgrep exited with ${code}`}`);
    }
    return { matches, truncated, skipped };
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
