import { randomBytes } from 'node:crypto';
import type { Span } from '@opentelemetry/api';
import type { Tool } from 'ai';
import type { Logger } from '../logger.js';
import { runInSpan } from '../telemetry/spans.js';
import { activeTraceparent } from '../telemetry/traceparent.js';
import { ConditionFailedError, type WriteOperation } from '../storage/table-store.js';
import type { AsyncToolOptions } from '../tools/async-tool-options.js';
import { type AsyncExecution, type AsyncTableRow, type AsyncToolResult, completePathFor, type DeliveryMetadata, type DispatchGroup, groupKey, resultIdFor } from './async-tool-result.js';
import type { AsyncToolResultsRepository } from './async-tool-results-repository.js';
import type { AsyncOutcome } from './async-settlement.js';
import type { AsyncToolCompletions } from './async-tool-completions.js';
import { endAsyncWaitSpan, startAsyncWaitSpan } from './async-tool-spans.js';

export interface AsyncPassOwner {
  accountId: string;
  agentId: string;
  conversationKey: string;
  turnId: string;
  delivery: DeliveryMetadata;
}

/** A same-invocation call that finished (or was failed by the time bound) during the turn. */
export interface SettledInvocation {
  resultId: string;
  toolCallId: string;
  toolName: string;
  outcome: AsyncOutcome;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function asResponse(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
}

/**
 * The async coordinator's state for one model pass. Local `async: true` tools
 * are wrapped: each call stores an AsyncToolResult row and returns `{resultId, status:
 * "processing"}` to the model at once. `same-invocation` work stays in memory as a pending
 * promise the turn waits for; `external-dispatch` rows are registered in the pass's dispatch
 * group, which the turn seals when the pass ends.
 */
export class AsyncPass {
  readonly groupId = `grp_${randomBytes(12).toString('hex')}`;
  private nextIndex = 0;
  private readonly pending = new Map<string, { toolCallId: string; toolName: string; promise: Promise<AsyncOutcome>; span?: Span }>();
  private readonly external: string[] = [];
  private readonly rows: AsyncToolResult[] = [];
  /** The turn's span, stored with the group so its continuation (on any replica) links to it. */
  private readonly traceparent = activeTraceparent();

  constructor(
    private readonly owner: AsyncPassOwner,
    private readonly repository: AsyncToolResultsRepository,
    private readonly completions: Pick<AsyncToolCompletions, 'settleInProcess'>,
    private readonly logger: Logger,
    private readonly now: () => Date,
  ) {}

  hasExternalCalls(): boolean {
    return this.external.length > 0;
  }

  hasPendingInvocations(): boolean {
    return this.pending.size > 0;
  }

  /** Rows this pass created, for `pendingAsyncTools`. */
  createdRows(): AsyncToolResult[] {
    return [...this.rows];
  }

  wrap(name: string, original: Tool, toolConfig: Record<string, unknown>): Tool {
    const execution: AsyncExecution = toolConfig.execution === 'external-dispatch' ? 'external-dispatch' : 'same-invocation';
    const execute = original.execute!;
    return {
      ...original,
      execute: async (input: unknown, options: Parameters<NonNullable<Tool['execute']>>[1]) => {
        const resultId = await this.register(name, options.toolCallId, execution);
        const asyncTool: AsyncToolOptions = { resultId, completePath: completePathFor(resultId) };
        const run = async (): Promise<unknown> => await execute(input, { ...options, asyncTool } as typeof options);
        if (execution === 'same-invocation') {
          const span = startAsyncWaitSpan(name, resultId);
          const promise = runInSpan(span, run).then(
            (value): AsyncOutcome => ({ status: 'completed', response: asResponse(value) }),
            (error: unknown): AsyncOutcome => ({ status: 'failed', error: describe(error) }),
          );
          this.pending.set(resultId, { toolCallId: options.toolCallId, toolName: name, promise, ...(span ? { span } : {}) });
          return { resultId, status: 'processing' };
        }
        try {
          await run();
        } catch (error) {
          const message = describe(error);
          this.logger.warn({ event: 'async-tool', tool: name, resultId, error: message }, 'dispatch failed');
          await this.completions.settleInProcess(resultId, { status: 'failed', error: message });
          return { resultId, status: 'failed', error: message };
        }
        return { resultId, status: 'processing' };
      },
    } as Tool;
  }

  /** Store the row (and, for external-dispatch, its registration in the group) in one write. */
  private async register(toolName: string, toolCallId: string, execution: AsyncExecution): Promise<string> {
    const resultId = resultIdFor(this.groupId, this.nextIndex++);
    if (execution === 'external-dispatch') this.external.push(resultId);
    const timestamp = this.now().toISOString();
    const row: AsyncToolResult = {
      kind: 'result',
      resultId,
      groupId: this.groupId,
      accountId: this.owner.accountId,
      agentId: this.owner.agentId,
      conversationKey: this.owner.conversationKey,
      turnId: this.owner.turnId,
      toolCallId,
      toolName,
      execution,
      status: 'processing',
      delivery: this.owner.delivery,
      asyncResultEventId: this.owner.delivery.eventId,
      createdAt: timestamp,
      updatedAt: timestamp,
    };
    this.rows.push(row);
    try {
      await this.repository.transition(this.groupId, (snapshot) => {
        const current = snapshot.group?.value;
        const group: DispatchGroup = current
          ? { ...current, resultIds: execution === 'external-dispatch' ? [...current.resultIds, resultId] : current.resultIds, updatedAt: timestamp }
          : {
              kind: 'group',
              groupId: this.groupId,
              accountId: this.owner.accountId,
              agentId: this.owner.agentId,
              conversationKey: this.owner.conversationKey,
              turnId: this.owner.turnId,
              resultIds: execution === 'external-dispatch' ? [resultId] : [],
              sealed: false,
              settledCount: 0,
              delivery: this.owner.delivery,
              ...(this.traceparent ? { traceparent: this.traceparent } : {}),
              createdAt: timestamp,
              updatedAt: timestamp,
            };
        const operations: WriteOperation<AsyncTableRow>[] = [
          { type: 'put', key: resultId, value: row, expectedVersion: null },
          { type: 'put', key: groupKey, value: group, expectedVersion: snapshot.group ? snapshot.group.version : null },
        ];
        return { operations, result: undefined };
      });
      return resultId;
    } catch (error) {
      if (error instanceof ConditionFailedError) throw new Error(`Could not register ${resultId} in its dispatch group.`, { cause: error });
      throw error;
    }
  }

  /**
   * Wait for the pass's same-invocation work, at most until `deadline`; settle each row and
   * return the outcomes in call order. Work still running at the deadline fails with a clear error.
   * A cancel (`signal`) stops the wait at once: what is still pending is left to the cancel,
   * which closes the group's rows.
   */
  async waitForInvocations(deadline: number, signal?: AbortSignal): Promise<SettledInvocation[]> {
    const settled: SettledInvocation[] = [];
    const cancelled = new Promise<'cancelled'>((resolve) => {
      if (signal?.aborted) resolve('cancelled');
      signal?.addEventListener('abort', () => resolve('cancelled'), { once: true });
    });
    for (const [resultId, call] of this.pending) {
      const remaining = Math.max(0, deadline - Date.now());
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<AsyncOutcome>((resolve) => {
        timer = setTimeout(() => resolve({ status: 'failed', error: `${call.toolName} did not finish within the turn's time limit for async tools.` }), remaining);
      });
      const outcome = await Promise.race([call.promise, timeout, cancelled]);
      clearTimeout(timer);
      if (outcome === 'cancelled') {
        for (const rest of this.pending.values()) endAsyncWaitSpan(rest.span, 'failed');
        this.pending.clear();
        return settled;
      }
      endAsyncWaitSpan(call.span, outcome.status);
      await this.completions.settleInProcess(resultId, outcome);
      settled.push({ resultId, toolCallId: call.toolCallId, toolName: call.toolName, outcome });
    }
    this.pending.clear();
    return settled;
  }
}
