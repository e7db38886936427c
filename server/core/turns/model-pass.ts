import { isStepCount, NoOutputGeneratedError, streamText, toUIMessageStream, type ModelMessage, type StepResult, type ToolSet, type UIMessageChunk } from 'ai';
import type { Agent } from '../agents/agent.js';
import { UpstreamError } from '../errors.js';
import type { AgentModel } from '../model/language-model.js';
import type { StructuredOutput } from '../structured-output/structured-output.js';
import { modelTelemetry } from '../telemetry/model-telemetry.js';
import type { UnavailableTools } from '../tools/unavailable-tools.js';
import { type StepUsage, stepUsage } from '../usage/step-usage.js';
import { hasTokens, type TokenUsage } from '../usage/token-usage.js';
import { describeModelError, isModelStreamFailure, scrubSecrets } from './model-error.js';
import { type CallBudget, promptCharacters, StepInProgress } from './step-in-progress.js';

/** What one model pass (one `streamText`, up to `maxSteps` model calls) is given. */
export interface ModelPassInput {
  agent: Agent;
  agentModel: AgentModel;
  tools: ToolSet;
  unavailableTools?: UnavailableTools;
  /** The conversation so far, as the model gets it. */
  messages: readonly { message: ModelMessage }[];
  maxSteps: number;
  maxRetries: number;
  /** A request's `instructions`: system text after the agent's `system`, for this run's calls only (never stored). */
  instructions?: string;
  /** The agent's memory notes for this turn (server/core/memory): system text after the agent's `system`, never stored. */
  memoryNotes?: string;
  /** The turn's structured output: the provider is asked for it on every call. */
  output?: StructuredOutput;
  /** The characters one model call may stream (`HARNESS_TURN_MAX_ANSWER_CHARACTERS`): past it the call is stopped and fails. */
  maxAnswerCharacters: number;
  signal: AbortSignal;
  telemetry: { accountId: string; agentId: string; turnId: string };
  secrets: string[];
  /**
   * The account's daily token budget, when a limit applies: a call that streams past what is
   * left is stopped at once (its chunks counted, estimated) rather than at its end.
   */
  budget?: { remaining(): number };
  /** Asked after each step that would lead to another model call: true stops the pass there (the daily token budget). */
  stopBeforeNextCall: () => boolean;
  /** Asked at each step boundary too: true (a steering message waits) stops the pass there, so the turn can take the message. */
  steerBeforeNextCall?: () => Promise<boolean>;
  /**
   * Before each call after the first (tool results came back): the messages to send instead,
   * when they would not fit the window (server/core/context); `previous`: how many messages the
   * last call sent and the input tokens the provider reported for them.
   */
  fitStep?: (messages: ModelMessage[], previous: { sentCount: number; reportedTokens: number } | undefined) => ModelMessage[] | undefined;
  /** True for a failure the turn recovers from by itself (a request over the window): its error is not streamed. */
  holdsError?: (error: unknown) => boolean;
  /** A model call ended (or was cut short and estimated): its usage, at once. */
  callEnded: (usage: TokenUsage) => void;
  write: (chunk: UIMessageChunk) => void;
}

/** What came of a model pass. */
export interface ModelPassResult {
  /** The pass's messages; undefined when it did not finish (a failure, a cancel). */
  responseMessages?: ModelMessage[];
  /** On a cancel: the messages of the steps that finished (all of them when the cancel came after the last). */
  finishedMessages: ModelMessage[];
  /** Each finished model call's usage, in order. */
  steps: StepUsage[];
  /** The call cut short (cancel, abort, timeout, failure mid-stream), estimated; undefined when none was. */
  cutShort?: TokenUsage;
  /** The text the step cut short had streamed. */
  partialText: string;
  /** Set when the model failed (none for a cancel). */
  modelError?: unknown;
  /** `stopBeforeNextCall` stopped the pass before a model call it would have made. */
  stoppedBeforeNextCall: boolean;
  /** `steerBeforeNextCall` stopped the pass at a step boundary: a steering message waits. */
  steeredBeforeNextCall: boolean;
  /** The text of the pass's last step, when the pass finished (what a structured output is read from). */
  finalText?: string;
  /** The budget ran out while a call streamed: the call was stopped (`cutShort`, `finishedMessages` and `partialText` say what it left). */
  budgetSpentMidCall: boolean;
}

/** What a pass the budget stopped mid-call leaves: its finished steps' messages, then the text the stopped call streamed. */
export function keptAfterBudgetStop(pass: ModelPassResult): ModelMessage[] {
  if (pass.responseMessages) return pass.responseMessages;
  return pass.partialText === '' ? pass.finishedMessages : [...pass.finishedMessages, { role: 'assistant', content: [{ type: 'text', text: pass.partialText }] }];
}

/** What a finished step streamed: its text, its reasoning and its tool calls' input. */
function streamedCharacters(step: StepResult<ToolSet>): number {
  return step.text.length + (step.reasoningText?.length ?? 0) + step.toolCalls.reduce((sum, call) => sum + JSON.stringify(call.input ?? null).length, 0);
}

/**
 * The messages of a cancelled pass's finished steps, with the messages made before its first
 * call in front, as AI SDK 6's last step held them; none when no step finished.
 */
function finishedMessagesOf(initialMessages: ModelMessage[], steps: readonly StepResult<ToolSet>[]): ModelMessage[] {
  if (steps.length === 0) return [];
  return [...initialMessages, ...steps.flatMap((step) => step.response.messages)];
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs one model pass, writing its chunks as they come, and says how it ended. */
export async function runModelPass(input: ModelPassInput): Promise<ModelPassResult> {
  const { agent, agentModel, signal, secrets, write } = input;
  let modelError: unknown;
  // The messages come from `onEnd`: reading `result.responseMessages` would tee the model's
  // stream once more and run every chunk through a second branch.
  let responseMessages: ModelMessage[] | undefined;
  let finalText: string | undefined;
  // The pass's messages made before its first model call: the results of the approved tools
  // the SDK runs at the start of a pass that resumes after approval answers. AI SDK 7 keeps
  // them out of every step's `response.messages` (which is that step's own messages only).
  let initialMessages: ModelMessage[] = [];
  // How many messages the pass has so far, for each step's `messageCount` (a running count).
  let messageCount = 0;
  // Each model call's usage, for the assistant message it produced and the turn's total.
  const steps: StepUsage[] = [];
  // On a cancel: the steps that finished, and the step that was cut short (its text, its estimated usage).
  let finishedSteps: StepResult<ToolSet>[] = [];
  // The same request for every call of the pass: measured once, when first asked.
  let requestCharacters: number | undefined;
  const system = [agent.config.system, input.memoryNotes, input.instructions].filter((text) => text !== undefined && text !== '').join('\n\n');
  const prompt = () => (requestCharacters ??= promptCharacters(system, { messages: input.messages }));
  // The pass's own signal: the turn's cancel, or the budget spent mid-call.
  const passAbort = new AbortController();
  const followTurn = () => passAbort.abort(signal.reason);
  if (signal.aborted) followTurn();
  else signal.addEventListener('abort', followTurn, { once: true });
  let budgetSpentMidCall = false;
  const budget: CallBudget | undefined = input.budget && {
    remaining: input.budget.remaining.bind(input.budget),
    requestCharacters: prompt,
    spent: () => {
      budgetSpentMidCall = true;
      passAbort.abort(new DOMException("The account's daily token budget is spent.", 'AbortError'));
    },
  };
  const { maxAnswerCharacters } = input;
  // The model's failure, whatever the SDK reports for the abort.
  let tooLong: UpstreamError | undefined;
  const answerTooLong = () => {
    tooLong = new UpstreamError(`the model's answer exceeded ${maxAnswerCharacters} characters`);
    passAbort.abort(tooLong);
  };
  const inProgress = new StepInProgress({ ...(budget ? { budget } : {}), maxAnswerCharacters, answerTooLong });
  let stoppedBeforeNextCall = false;
  // How many messages the latest call sent (what its reported input tokens count).
  let sentCount = 0;
  // Each call's usage names the provider and model that made it (a fallback's, after a failover).
  const answeredBy = (usage: TokenUsage): TokenUsage => {
    const answering = agentModel.answeredBy?.() ?? agentModel;
    return { ...usage, provider: answering.providerName, model: answering.modelId };
  };
  const stopCondition = () => (stoppedBeforeNextCall = input.stopBeforeNextCall());
  let steeredBeforeNextCall = false;
  const { steerBeforeNextCall } = input;
  const steerCondition = async () => !stoppedBeforeNextCall && steerBeforeNextCall !== undefined && (steeredBeforeNextCall = await steerBeforeNextCall());
  const stream = streamText({
    model: agentModel.model,
    // The system prompt goes as `instructions`, never as a system message inside `messages`
    // (AI SDK 7 refuses those): stored conversations hold no system message.
    // A request's `instructions` follow the agent's system prompt, for this pass only.
    ...(system ? { instructions: system } : {}),
    messages: input.messages.map((stored) => stored.message),
    tools: input.tools,
    ...(input.unavailableTools ? { repairToolCall: input.unavailableTools.repairFunction() } : {}),
    stopWhen: steerBeforeNextCall ? [isStepCount(input.maxSteps), stopCondition, steerCondition] : [isStepCount(input.maxSteps), stopCondition],
    // `config.model`'s settings (temperature, topP... `timeoutMs` as `timeout`); its
    // `maxRetries` over the service's.
    ...agentModel.callSettings,
    maxRetries: agentModel.callSettings.maxRetries ?? input.maxRetries,
    abortSignal: passAbort.signal,
    ...(agentModel.providerOptions ? { providerOptions: agentModel.providerOptions } : {}),
    ...(input.output ? { output: input.output.specification } : {}),
    ...modelTelemetry(input.telemetry),
    onError: ({ error }) => {
      modelError = error;
    },
    prepareStep: ({ stepNumber, responseMessages: before, messages, steps: done }) => {
      if (stepNumber === 0) {
        initialMessages = [...before];
        messageCount = initialMessages.length;
      }
      const reported = done.at(-1)?.usage.inputTokens;
      const fitted = stepNumber > 0 ? input.fitStep?.(messages, reported === undefined ? undefined : { sentCount, reportedTokens: reported }) : undefined;
      sentCount = (fitted ?? messages).length;
      return fitted ? { messages: fitted } : undefined;
    },
    onStepEnd: (step) => {
      messageCount += step.response.messages.length;
      const finished = stepUsage(step, messageCount);
      // An error event mid-stream ends the step without the provider's usage: estimated.
      const failed = step.finishReason === 'error' && !hasTokens(finished.usage) ? inProgress.failedStepUsage(streamedCharacters(step), prompt) : undefined;
      if (failed) finished.usage = failed;
      finished.usage = answeredBy(finished.usage);
      steps.push(finished);
      input.callEnded(finished.usage);
    },
    onEnd: (event) => {
      // Every step's messages after the ones made before the first call (AI SDK 7: the
      // event's `response` is the final step's alone).
      responseMessages = event.responseMessages;
      finalText = event.text;
    },
    onAbort: ({ steps: finished }) => {
      finishedSteps = finished;
    },
  });
  // `onError` also writes each tool's error (`tool-output-error`), which is the tool's own
  // message; the `error` chunk of a failed model call is described as one below.
  const reader = toUIMessageStream({ stream: stream.stream, tools: input.tools, sendStart: false, sendFinish: false, sendSources: true, onError: (error) => scrubSecrets(errorMessage(error), secrets) }).getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      const chunk = next.value;
      inProgress.observe(chunk);
      // The turn's own finish says `cancelled`; the SDK's abort chunk would end the client's message early.
      if (chunk.type === 'error' && input.holdsError?.(modelError ?? chunk.errorText)) continue;
      if (chunk.type === 'error') write({ type: 'error', errorText: describeModelError(modelError ?? chunk.errorText, secrets) });
      else if (chunk.type !== 'abort') write(chunk);
    }
  } catch (error) {
    // A cancel can surface as the stream's error (a tool or the provider rethrowing the abort).
    // A model answer cut off mid-stream (over its byte or time limit, or the connection lost)
    // is thrown by the SDK rather than reported as an error part: it is the model's failure.
    if (!passAbort.signal.aborted && isModelStreamFailure(error)) modelError ??= error;
    else if (!passAbort.signal.aborted) throw error;
  } finally {
    signal.removeEventListener('abort', followTurn);
  }
  if (tooLong) modelError = tooLong;
  // A call cut short never got the provider's count, which comes with its last event: estimated.
  const estimated = inProgress.cutShortUsage(prompt);
  const cutShort = estimated ? answeredBy(estimated) : undefined;
  if (cutShort) input.callEnded(cutShort);
  // No `onEnd` and no error reported: the model produced no step at all (a cancel is not a failure).
  if (!passAbort.signal.aborted && responseMessages === undefined) modelError ??= new NoOutputGeneratedError({ message: 'No output generated. Check the stream for errors.' });
  // An answer over the bound is not kept, even when its last chunks made it to the end.
  const finished = tooLong ? undefined : (responseMessages as ModelMessage[] | undefined);
  return {
    ...(finished ? { responseMessages: finished } : {}),
    // A cancel that came after the model's last step keeps that step whole.
    finishedMessages: finished ?? finishedMessagesOf(initialMessages, finishedSteps),
    steps,
    ...(cutShort ? { cutShort } : {}),
    partialText: finished ? '' : inProgress.partialText,
    // The budget's own abort is not the model's failure.
    ...(modelError !== undefined && !budgetSpentMidCall ? { modelError } : {}),
    stoppedBeforeNextCall,
    steeredBeforeNextCall,
    budgetSpentMidCall,
    ...(finished && finalText !== undefined ? { finalText } : {}),
  };
}
