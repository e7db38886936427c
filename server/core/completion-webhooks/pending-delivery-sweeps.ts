import type { Logger } from '../logger.js';

export interface PendingDeliverySweepsOptions {
  /** Replicas: sweep every `sweepMs`, for retries whose replica died. */
  shared: boolean;
  sweepMs: number;
  /** Reads every pending delivery and takes it up (`CompletionWebhooks.recover`). */
  sweep(): Promise<unknown>;
  logger: Logger;
}

/**
 * When a process looks in storage again for pending deliveries it does not hold: on replicas
 * every `sweepMs`; and, alone, `sweepMs` after a read failed (an account's refill, or a sweep),
 * again while it fails, so a delivery a failed read left in storage waits for no restart.
 */
export class PendingDeliverySweeps {
  private periodic: NodeJS.Timeout | undefined;
  private once: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: PendingDeliverySweepsOptions) {}

  /** After the boot's recovery: replicas start sweeping. */
  start(): void {
    if (this.options.shared && !this.stopped) this.periodic = setInterval(() => this.sweep(), this.options.sweepMs).unref();
  }

  /** A read of pending deliveries failed: sweep later (replicas sweep anyway). */
  readFailed(): void {
    if (this.options.shared || this.stopped || this.once !== undefined) return;
    this.once = setTimeout(() => {
      this.once = undefined;
      this.sweep();
    }, this.options.sweepMs).unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.periodic);
    clearTimeout(this.once);
  }

  private sweep(): void {
    this.options.sweep().catch((error: unknown) => {
      this.options.logger.warn({ event: 'completion-webhook', error: (error as Error).message }, 'webhook sweep failed; retrying at the next one');
      this.readFailed();
    });
  }
}
