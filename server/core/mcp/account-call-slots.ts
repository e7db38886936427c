import { McpToolError } from './mcp-tool-error.js';

interface Waiter {
  grant: () => void;
}

interface AccountQueue {
  running: number;
  waiting: Waiter[];
}

/**
 * At most `perAccount` MCP requests (calls and lists) of one account in flight, all its agents
 * and servers together, so one account cannot hold every connection and socket of the process.
 * A request past it waits in the account's own queue, first come first served, for at most
 * `waitMs`; the queue holds at most `maxWaiting` and a request that finds it full, or waits
 * too long, is a tool error naming the setting.
 */
export class AccountCallSlots {
  private readonly accounts = new Map<string, AccountQueue>();

  constructor(
    private readonly perAccount: number,
    private readonly maxWaiting: number,
  ) {}

  /** A slot for `accountId`; call the returned function once, when the request ends. */
  async take(accountId: string, server: string, waitMs: number, signal?: AbortSignal): Promise<() => void> {
    const queue = this.accounts.get(accountId) ?? { running: 0, waiting: [] };
    this.accounts.set(accountId, queue);
    if (queue.running < this.perAccount) {
      queue.running += 1;
      return this.releaserOf(accountId, queue);
    }
    const refusal = `The MCP server "${server}" was not called: this account already has ${this.perAccount} MCP requests in flight, the most it may (HARNESS_MCP_MAX_CALLS_PER_ACCOUNT)`;
    if (signal?.aborted) throw new McpToolError(`The MCP server "${server}" was not called: the request was cancelled.`, 'limit');
    if (queue.waiting.length >= this.maxWaiting) throw new McpToolError(`${refusal}, and ${this.maxWaiting} more waiting.`, 'limit');
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const giveUp = (error: Error) => {
        queue.waiting.splice(queue.waiting.indexOf(waiter), 1);
        signal?.removeEventListener('abort', onAbort);
        clearTimeout(timer);
        reject(error);
      };
      const onAbort = () => giveUp(new McpToolError(`The MCP server "${server}" was not called: the request was cancelled while waiting for a free slot.`, 'limit'));
      const timer = setTimeout(() => giveUp(new McpToolError(`${refusal}, and none ended within ${waitMs} ms.`, 'limit')), waitMs);
      timer.unref();
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.waiting.push(waiter);
    });
    // The slot was handed over by the request that ended: `running` did not change.
    return this.releaserOf(accountId, queue);
  }

  /** Requests of `accountId` in flight now (tests look). */
  running(accountId: string): number {
    return this.accounts.get(accountId)?.running ?? 0;
  }

  private releaserOf(accountId: string, queue: AccountQueue): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = queue.waiting.shift();
      if (next) return next.grant();
      queue.running -= 1;
      if (queue.running === 0 && this.accounts.get(accountId) === queue) this.accounts.delete(accountId);
    };
  }
}
