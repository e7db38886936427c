import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Logger } from '../core/logger.js';

/** A line waiter: resolves with the first later line that matches one of its patterns. */
interface LineWaiter {
  patterns: RegExp[];
  resolve(line: string): void;
}

const keptLineCount = 40;

/** Expected on loopback (the listener is bound to 127.0.0.1): not worth a warning at every start. */
const expectedWarnings = [/Websocket not configured with TLS/];

/**
 * The output of a nats-server child: forwards each line to the logger (errors and
 * warnings as `warn`, the rest as `debug`), keeps the last lines for error messages, and
 * lets callers wait for a line ("Server is ready", "Reloaded server configuration").
 * nats-server never logs passwords: it logs user names and subjects.
 */
export class NatsServerLog {
  private readonly lines: string[] = [];
  private waiters: LineWaiter[] = [];

  constructor(private readonly logger: Logger) {}

  /** Reads lines from one of the child's output streams. */
  follow(stream: Readable): void {
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => this.add(line));
  }

  /** The last lines, oldest first, for an error message. */
  recent(): string {
    return this.lines.join('\n');
  }

  /** Resolves with the first line, from now on, that matches any of `patterns`. */
  waitForLine(patterns: RegExp[]): { line: Promise<string>; cancel(): void } {
    let waiter: LineWaiter | undefined;
    const line = new Promise<string>((resolve) => {
      waiter = { patterns, resolve };
      this.waiters.push(waiter);
    });
    return { line, cancel: () => (this.waiters = this.waiters.filter((each) => each !== waiter)) };
  }

  private add(line: string): void {
    this.lines.push(line);
    if (this.lines.length > keptLineCount) this.lines.shift();
    const problem = /\[(ERR|FTL|WRN)\]/.test(line) && !expectedWarnings.some((pattern) => pattern.test(line));
    if (problem) this.logger.warn({ component: 'nats-server', line }, 'nats-server reported a problem');
    else this.logger.debug({ component: 'nats-server', line }, 'nats-server');
    const matched = this.waiters.filter((waiter) => waiter.patterns.some((pattern) => pattern.test(line)));
    if (matched.length === 0) return;
    this.waiters = this.waiters.filter((waiter) => !matched.includes(waiter));
    for (const waiter of matched) waiter.resolve(line);
  }
}
