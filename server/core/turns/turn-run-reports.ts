import type { AsyncPass } from '../async-tools/async-pass.js';
import type { PreparedTurn, TurnExecutionServices } from './turn-execution-inputs.js';
import { runUsage, type TurnOutcome, turnResult } from './turn-outcome.js';

type Reporting = Pick<TurnExecutionServices, 'runReports' | 'completions'>;

/** The run fields every report names: the run's event and where the turn came from. */
function runOf(turn: PreparedTurn) {
  const { accountId, agentId, conversationKey, transport } = turn.request;
  return { eventId: turn.eventId, accountId, agentId, conversationKey, transport };
}

/**
 * The pass made external calls: the run is told it waits for them (its status row says so
 * before the stream ends), then the group is sealed. The seal checks readiness itself
 * (siblings may have settled already) and may claim the continuation, which runs once this
 * turn has released the conversation.
 */
export async function reportWaitingForExternal(services: Reporting, turn: PreparedTurn, outcome: TurnOutcome, asyncPass: AsyncPass): Promise<'waiting_async_tools'> {
  for (const row of asyncPass.createdRows()) {
    if (row.execution === 'external-dispatch') {
      outcome.waitingOn.push({ resultId: row.resultId, toolCallId: row.toolCallId, toolName: row.toolName, execution: row.execution, status: 'processing' });
    }
  }
  await services.runReports.waitForAsyncTools({ ...runOf(turn), pendingAsyncTools: outcome.waitingOn, ...runUsage(outcome) });
  await services.completions.seal(asyncPass.groupId);
  return 'waiting_async_tools';
}

/** A cancel stopped the turn: the run is told, with what the turn said and used. */
export async function reportCancelled(services: Reporting, turn: PreparedTurn, outcome: TurnOutcome): Promise<void> {
  const result = turnResult(outcome, 'cancelled');
  await services.runReports.cancel({ ...runOf(turn), text: result.text, messages: result.messages, ...runUsage(outcome) });
}
