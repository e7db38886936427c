import { generateId, type ModelMessage, type UIMessageChunk } from 'ai';
import { cancelledReason } from './run-reports.js';
import { AsyncPass } from '../async-tools/async-pass.js';
import { type DeliveryMetadata, groupIdOfResult } from '../async-tools/async-tool-result.js';
import { type ApprovalRecord, lastMessage } from '../conversations/conversation.js';
import { TurnContext } from '../context/turn-context.js';
import { collectSecretValues } from '../secrets/redaction.js';
import { type StepUsage, usagePerMessage } from '../usage/step-usage.js';
import type { TokenUsage } from '../usage/token-usage.js';
import { busyChunk, streamOf } from './handed-over-turn.js';
import { reportCancelled, reportWaitingForExternal } from './turn-run-reports.js';
import { RunUsageRecorder } from './run-usage-recorder.js';
import { denyOpenApprovals, recordApprovalRequests } from './approvals.js';
import { asyncResultsMessages, asyncSettledChunk, type SettledAsyncCall } from './async-results-message.js';
import { describeModelError } from './model-error.js';
import { keptAfterBudgetStop, runModelPass } from './model-pass.js';
import { finishChunk, startChunk, type TurnOutcome, turnResult } from './turn-outcome.js';
import type { TurnStatus } from './turn-input.js';
import { defaultTurnSettings } from './turn-settings.js';
import type { PreparedTurn, TurnExecutionServices } from './turn-execution-inputs.js';
import { followCancels, openTurnStream } from './turn-stream.js';
import { outputChunk, settleTurnOutput } from '../structured-output/turn-output.js';
import type { StartedTurn, TurnResult } from './turn-types.js';

export type { PassHolder, PreparedTurn, TurnExecutionServices } from './turn-execution-inputs.js';

const defaultDenialReason = (toolName: string) => `${toolName} needs an approval, and approvals cannot be given here.`;

/** One running turn: the model passes, the stream, and the final result. */
export class TurnExecution {
  private version: number | null;
  private readonly outcome: TurnOutcome;
  private readonly secrets: string[];
  /** Aborted by a cancel request: stops the model call, the tools (their `abortSignal`) and async waits. */
  private readonly cancel = new AbortController();
  private readonly usage: RunUsageRecorder;

  constructor(
    private readonly services: TurnExecutionServices,
    private readonly turn: PreparedTurn,
  ) {
    this.version = turn.version;
    this.secrets = collectSecretValues(turn.agent.config);
    const { turnId, eventId, state, firstNewMessage } = turn;
    this.outcome = { turnId, eventId, conversationKey: turn.request.conversationKey, state, firstNewMessage, waitingOn: [], denied: [], ...(turn.busy ? { busy: turn.busy } : {}) };
    const { accountId, agentId, input } = turn.request;
    this.usage = new RunUsageRecorder(services.usage, { accountId, agentId, startsTurn: input?.kind === 'user', ...(turn.budget ? { budget: turn.budget } : {}) });
  }

  /** Answers were recorded but others of the same step are still open. */
  finishAwaitingApproval(): StartedTurn {
    this.turn.release();
    const result = turnResult(this.outcome, 'awaiting_approval');
    return { turnId: this.turn.turnId, eventId: this.turn.eventId, stream: streamOf([startChunk(this.turn.turnId, this.turn.eventId), finishChunk(result)]), result: Promise.resolve(result) };
  }

  run(announce: SettledAsyncCall[]): StartedTurn {
    let resolveResult!: (result: TurnResult) => void;
    const result = new Promise<TurnResult>((resolve) => (resolveResult = resolve));
    const { stream, write, close } = openTurnStream();
    const { turnId, eventId } = this.turn;
    const unregister = followCancels(this.turn, this.services.runningTurns, this.cancel);
    const execute = async () => {
      let final: TurnResult | undefined;
      try {
        write(startChunk(turnId, eventId, generateId()));
        if (this.turn.busy) write(busyChunk(this.turn.busy));
        for (const call of announce) write(asyncSettledChunk(call));
        let status = await this.passes(write);
        // From here a cancel finds the run in storage (waiting, or ended), not running.
        unregister();
        if (this.cancel.signal.aborted && (status === 'awaiting_approval' || status === 'waiting_async_tools')) status = await this.closeWaitAfterCancel();
        final = turnResult(this.outcome, status);
        // What the passes left uncounted (a cancel), and the turn when nothing was counted yet.
        await this.usage.flush();
        if (final.output) write(outputChunk(final.output.value));
        write(finishChunk(final));
      } catch (error) {
        this.services.logger.error({ event: 'turn', turnId: this.turn.turnId, error: (error as Error).message }, 'turn failed');
        this.outcome.failure ??= { kind: 'internal', message: 'The turn failed inside the service; it has been logged.' };
        final = turnResult(this.outcome, 'failed');
        await this.usage.flush();
        write({ type: 'error', errorText: this.outcome.failure.message });
        write(finishChunk(final));
      } finally {
        unregister();
        this.usage.close();
        this.turn.release();
        resolveResult(final ?? turnResult(this.outcome, 'failed'));
        close();
      }
    };
    void execute();
    return { turnId: this.turn.turnId, eventId: this.turn.eventId, stream, result };
  }

  /** Model passes until the turn completes, fails, waits for a person, or waits for async tools. */
  private async passes(write: (chunk: UIMessageChunk) => void): Promise<TurnStatus> {
    const { request, agent, agentModel, tools, state, turnId, holder } = this.turn;
    const { logger, now } = this.services;
    const maxSteps = agent.config.maxSteps ?? this.services.defaultMaxSteps;
    const deadline = Date.now() + this.services.sameInvocationTimeoutMs;
    const delivery: DeliveryMetadata = { transport: request.transport, eventId: this.turn.eventId, ...(request.replyTarget ? { replyTarget: request.replyTarget } : {}), ...(request.overrides ? { overrides: request.overrides } : {}) };
    const signal = this.cancel.signal;
    const { steering } = this.services;
    const context = this.turnContext();
    for (let pass = 0; pass < maxSteps * 4; pass += 1) {
      if (signal.aborted) return this.finishCancelled(undefined, [], '');
      // Before every model pass (a continuation's first, the one after async results or denials).
      if (this.turn.budget?.exhausted()) return this.stopForBudget(pass === 0);
      const owner = { accountId: request.accountId, agentId: request.agentId, conversationKey: request.conversationKey, turnId, delivery };
      const asyncPass = new AsyncPass(owner, this.services.asyncResults, this.services.completions, logger, now);
      holder.current = asyncPass;
      // What this pass sends: the history, or its summary and what followed (server/core/context).
      const prepared = context && (await context.beforePass(signal, write));
      if (prepared) this.countCalls(prepared.summaryCalls.map((usage) => ({ usage, messageCount: 0 })));
      const modelPass = await runModelPass({
        agent,
        agentModel,
        tools,
        ...(this.turn.unavailableTools ? { unavailableTools: this.turn.unavailableTools } : {}),
        messages: prepared?.messages ?? state.messages,
        ...context?.passOptions(),
        maxSteps,
        maxRetries: this.services.modelMaxRetries,
        ...(request.overrides?.instructions ? { instructions: request.overrides.instructions } : {}),
        ...(this.turn.memoryNotes ? { memoryNotes: this.turn.memoryNotes } : {}),
        ...(this.turn.output ? { output: this.turn.output } : {}),
        maxAnswerCharacters: this.services.maxAnswerCharacters ?? defaultTurnSettings.maxAnswerCharacters,
        signal,
        telemetry: { accountId: request.accountId, agentId: request.agentId, turnId },
        secrets: this.secrets,
        // Watched while a call streams, and checked at each step boundary: once spent, no further model call.
        ...(this.turn.budget?.limited ? { budget: this.turn.budget } : {}),
        stopBeforeNextCall: () => this.turn.budget?.exhausted() ?? false,
        ...(steering ? { steerBeforeNextCall: () => steering.steeringWaits(request) } : {}),
        callEnded: (usage) => this.usage.callEnded(usage),
        write,
      });
      const { steps, cutShort, modelError } = modelPass;
      context?.afterPass(steps);
      if (signal.aborted) return this.finishCancelled(asyncPass, modelPass.finishedMessages, modelPass.partialText, steps, cutShort);
      const responseMessages = modelPass.budgetSpentMidCall ? keptAfterBudgetStop(modelPass) : modelPass.responseMessages;
      let timestamp = now().toISOString();
      // The call the budget stopped goes on the text it streamed.
      const usages = usagePerMessage(responseMessages ?? [], cutShort ? [...steps, { usage: cutShort, messageCount: responseMessages?.length ?? 0 }] : steps);
      for (const [index, message] of (responseMessages ?? []).entries()) state.messages.push({ message, turnId, createdAt: timestamp, ...(usages[index] ? { usage: usages[index] } : {}) });
      this.countCalls(steps, cutShort);
      const requested = recordApprovalRequests(state, responseMessages ?? [], turnId, timestamp, this.turn.eventId);
      // A request over the window: compacted harder and called again, once.
      if (modelError !== undefined && !responseMessages && !asyncPass.hasPendingInvocations() && context?.retryAfterOverflow(modelError)) continue;
      if (modelError !== undefined) {
        this.outcome.failure = { kind: 'upstream', message: context?.overflowMessage(modelError) ?? describeModelError(modelError, this.secrets) };
        logger.warn({ event: 'turn', turnId, agentId: request.agentId, error: this.outcome.failure.message }, 'model call failed');
      }
      // Same-invocation work is awaited before anything else, even when the pass failed, so
      // its rows end settled; its results go to the model in the next pass.
      const settled = asyncPass.hasPendingInvocations() ? await asyncPass.waitForInvocations(this.outcome.failure ? Date.now() : deadline, signal) : [];
      if (signal.aborted) {
        // The pass's messages are in the state already; the calls cut short are closed with the group.
        return this.finishCancelled(asyncPass, [], '');
      }
      timestamp = now().toISOString();
      if (settled.length > 0 && !this.outcome.failure) {
        for (const message of asyncResultsMessages(settled)) state.messages.push({ message, turnId, createdAt: timestamp });
      }
      const denied = this.outcome.failure || request.approvalPolicy === 'ask' ? [] : this.denyAll(requested, timestamp);
      // The pass ends the turn: its final answer must hold the structured output (stored with the message).
      const ends = settled.length + denied.length + requested.length === 0 && !asyncPass.hasExternalCalls() && !modelPass.stoppedBeforeNextCall && !modelPass.budgetSpentMidCall && !modelPass.steeredBeforeNextCall;
      if (this.turn.output && ends && !this.outcome.failure) settleTurnOutput(this.turn.output, modelPass.finalText, this.outcome, write);
      state.updatedAt = timestamp;
      const saved = this.services.save(state, this.version);
      // Counted with the pass's write (the same group commit on lowdb), not in a write of its own after it.
      const counted = this.usage.flush();
      this.version = await saved;
      await counted;
      for (const call of settled) write(asyncSettledChunk(call));
      if (this.outcome.failure) return 'failed';
      for (const approval of denied) {
        write({ type: 'data-approval-denied', data: { toolCallId: approval.toolCallId, toolName: approval.toolName, reason: approval.reason ?? '' } } as UIMessageChunk);
      }
      if (asyncPass.hasExternalCalls()) return reportWaitingForExternal(this.services, this.turn, this.outcome, asyncPass);
      if (modelPass.stoppedBeforeNextCall || modelPass.budgetSpentMidCall) return this.stopForBudget(false);
      if (modelPass.steeredBeforeNextCall || settled.length > 0 || denied.length > 0) {
        // A step boundary: steering messages that wait are given to the model with the next pass.
        if (steering) await this.takeSteering(steering, write);
        continue;
      }
      return requested.length > 0 ? 'awaiting_approval' : 'completed';
    }
    throw new Error(`The turn was stopped after ${maxSteps * 4} model passes.`);
  }

  /**
   * Takes the steering messages that wait for this turn and adds them to the conversation
   * (stored at once: they left the inbox), telling the stream how many came.
   */
  private async takeSteering(steering: NonNullable<TurnExecutionServices['steering']>, write: (chunk: UIMessageChunk) => void): Promise<void> {
    const { request, state, turnId } = this.turn;
    const messages = await steering.takeSteering(request);
    if (messages.length === 0) return;
    const timestamp = this.services.now().toISOString();
    for (const message of messages) state.messages.push({ message, turnId, createdAt: timestamp });
    state.updatedAt = timestamp;
    this.version = await this.services.save(state, this.version);
    write({ type: 'data-steer', data: { messages: messages.length } } as UIMessageChunk);
  }

  /**
   * The account's daily token budget is spent: the run ends `failed` before another model
   * call, with what it streamed and stored kept. `save`: the run changed the conversation
   * since its last write (a continuation's injected results, before its first pass).
   */
  private async stopForBudget(save: boolean): Promise<TurnStatus> {
    const { request, state, turnId } = this.turn;
    const error = this.turn.budget!.exhaustedError();
    this.outcome.failure = { kind: 'budget', message: error.message, retryAfterSeconds: error.retryAfterSeconds };
    if (save) {
      state.updatedAt = this.services.now().toISOString();
      this.version = await this.services.save(state, this.version);
    }
    this.services.logger.warn({ event: 'turn', turnId, agentId: request.agentId, accountId: request.accountId }, 'daily token budget spent: the turn stops before its next model call');
    return 'failed';
  }

  /**
   * A cancel request stopped the turn. Stored: the messages of the model steps that finished,
   * then the text streamed by the step that was cut short, marked `cancelled` (its unfinished
   * tool calls are left out, so the conversation stays valid for the next turn). The pass's
   * async calls still processing are closed, and the status row says `cancelled`.
   */
  private async finishCancelled(asyncPass: AsyncPass | undefined, finished: ModelMessage[], partialText: string, steps: StepUsage[] = [], cutShort?: TokenUsage): Promise<TurnStatus> {
    const { request, state, turnId, eventId } = this.turn;
    const timestamp = this.services.now().toISOString();
    const usages = usagePerMessage(finished, steps);
    for (const [index, message] of finished.entries()) state.messages.push({ message, turnId, createdAt: timestamp, ...(usages[index] ? { usage: usages[index] } : {}) });
    if (partialText !== '') state.messages.push({ message: { role: 'assistant', content: [{ type: 'text', text: partialText }] }, turnId, createdAt: timestamp, cancelled: true, ...(cutShort ? { usage: cutShort } : {}) });
    else {
      // Nothing was being written: the mark goes on the turn's last message, if it has one.
      const last = lastMessage(state.messages);
      if (last && last.turnId === turnId && state.messages.length > this.turn.firstNewMessage && last.message.role === 'assistant') last.cancelled = true;
    }
    this.countCalls(steps, cutShort);
    if (asyncPass && asyncPass.createdRows().length > 0) await this.services.completions.cancelGroup(asyncPass.groupId, cancelledReason);
    state.updatedAt = timestamp;
    this.version = await this.services.save(state, this.version);
    await reportCancelled(this.services, this.turn, this.outcome);
    this.services.logger.info({ event: 'turn', turnId, eventId, agentId: request.agentId }, 'turn cancelled');
    return 'cancelled';
  }

  /**
   * The cancel came as the turn stopped to wait (for a person or external calls): what it
   * waits for is closed here, as a cancel of a waiting run would close it.
   */
  private async closeWaitAfterCancel(): Promise<TurnStatus> {
    const { state, turnId } = this.turn;
    const timestamp = this.services.now().toISOString();
    const groups = new Set(this.outcome.waitingOn.map((call) => groupIdOfResult(call.resultId)).filter((id): id is string => id !== undefined));
    for (const groupId of groups) await this.services.completions.cancelGroup(groupId, cancelledReason);
    this.outcome.waitingOn = [];
    if (denyOpenApprovals(state, () => 'The run was cancelled before this approval was answered.', turnId, timestamp).length > 0) {
      state.updatedAt = timestamp;
      this.version = await this.services.save(state, this.version);
    }
    await reportCancelled(this.services, this.turn, this.outcome);
    return 'cancelled';
  }

  /** The turn's context (none when the service manages none): the agent's system text as every call sends it. */
  private turnContext(): TurnContext | undefined {
    const { agent, agentModel, tools, state, turnId, request, memoryNotes } = this.turn;
    if (!this.services.context) return undefined;
    const system = [agent.config.system, memoryNotes, request.overrides?.instructions].filter((text) => text !== undefined && text !== '').join('\n\n');
    return new TurnContext(this.services.context, { state, config: agent.config, agentModel, tools, system, turnId, now: this.services.now });
  }

  /** Adds a pass's model calls (and the one it cut short) to this run's usage, and to what the daily counters are yet to count. */
  private countCalls(steps: StepUsage[], cutShort?: TokenUsage): void {
    const calls = steps.map((step) => step.usage);
    if (cutShort) calls.push(cutShort);
    this.outcome.usageByCall = [...(this.outcome.usageByCall ?? []), ...calls];
    this.usage.add(calls);
  }

  private denyAll(requested: ApprovalRecord[], timestamp: string): ApprovalRecord[] {
    if (requested.length === 0) return [];
    const reasonFor = this.turn.request.denialReason ?? defaultDenialReason;
    const denied = denyOpenApprovals(this.turn.state, (approval) => reasonFor(approval.toolName), this.turn.turnId, timestamp);
    for (const approval of denied) this.outcome.denied.push({ toolName: approval.toolName, reason: approval.reason ?? '' });
    return denied;
  }
}
