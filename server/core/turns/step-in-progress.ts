import type { UIMessageChunk } from 'ai';
import { charactersPerToken, estimatedCallUsage, tokensOf } from '../usage/estimated-usage.js';
import type { TokenUsage } from '../usage/token-usage.js';
import { defaultTurnSettings } from './turn-settings.js';

/**
 * The account's daily token budget as a streaming model call sees it. Given only when a limit
 * applies: with none, nothing is watched.
 */
export interface CallBudget {
  /** The tokens the account may still use today, as far as this process knows (no storage read). */
  remaining(): number;
  /** The characters of the pass's request (asked once per pass, at the first look). */
  requestCharacters(): number;
  /** The call in progress has used what was left: stop it now. */
  spent(): void;
}

/**
 * Characters a call may stream between two looks at the budget even when much is left, so the
 * calls of the account that end meanwhile (another turn, a subagent) are seen within about
 * a thousand tokens.
 */
export const budgetLookEveryCharacters = 4 * 1024;

export interface StepInProgressOptions {
  /** Stops the call once its estimate reaches what the budget has left; none: no limit applies. */
  budget?: CallBudget;
  /**
   * The characters one call may stream (`HARNESS_TURN_MAX_ANSWER_CHARACTERS`); past it
   * `answerTooLong` is called once. Also the most text a cut step keeps: a cancel after minutes
   * of an endless answer does not write megabytes to the conversation, the status row and every
   * later request (25 MiB kept took the event loop 0.6 s to save).
   */
  maxAnswerCharacters?: number;
  answerTooLong?: () => void;
}

/**
 * Follows a model pass's stream for the step (model call) in progress: the text it streamed,
 * kept for a cancelled turn to store, and every character it streamed (text, reasoning, tool
 * input), to estimate a call that is cut short before the provider's usage arrives. It stops
 * the call once it streams more than `maxAnswerCharacters`, and with a budget, once its
 * estimate (request and output so far) reaches what the account has left: per chunk one add
 * and one comparison, the budget looked at only when the step's first output comes and then
 * every `budgetLookEveryCharacters` or when due.
 */
export class StepInProgress {
  private open = false;
  private text = '';
  private streamedInStep = 0;
  /** Characters earlier steps of the pass streamed: they are part of the next step's request. */
  private streamedBefore = 0;
  /** The step's streamed characters at which its limits are looked at again. */
  private lookAt: number;
  private stopped = false;
  private requestCharacters: number | undefined;
  private readonly maxText: number;

  constructor(private readonly options: StepInProgressOptions = {}) {
    this.maxText = options.maxAnswerCharacters ?? defaultTurnSettings.maxAnswerCharacters;
    this.lookAt = this.firstLook();
  }

  /** A step's first look: with its first output when a budget applies, else past the answer's bound. */
  private firstLook(): number {
    return this.stopped ? Number.POSITIVE_INFINITY : this.options.budget ? 0 : this.maxText + 1;
  }

  observe(chunk: UIMessageChunk): void {
    switch (chunk.type) {
      case 'start-step':
        this.open = true;
        this.text = '';
        this.streamedInStep = 0;
        // The step before it is counted now: look again with the new step's first output.
        this.lookAt = this.firstLook();
        return;
      case 'finish-step':
        this.open = false;
        this.streamedBefore += this.streamedInStep;
        this.streamedInStep = 0;
        return;
      case 'text-delta':
        if (this.text.length < this.maxText) this.text += chunk.delta.length <= this.maxText - this.text.length ? chunk.delta : chunk.delta.slice(0, this.maxText - this.text.length);
        this.streamedInStep += chunk.delta.length;
        break;
      case 'reasoning-delta':
        this.streamedInStep += chunk.delta.length;
        break;
      case 'tool-input-delta':
        this.streamedInStep += chunk.inputTextDelta.length;
        break;
      default:
        return;
    }
    if (this.streamedInStep >= this.lookAt) this.lookAtLimits();
  }

  /** Stops the call when it is too long or its estimate reaches what the budget has left, or says when to look again. */
  private lookAtLimits(): void {
    if (this.streamedInStep > this.maxText) return this.stop(this.options.answerTooLong);
    const budget = this.options.budget;
    if (!budget) {
      this.lookAt = this.maxText + 1;
      return;
    }
    this.requestCharacters ??= budget.requestCharacters();
    // What the call's output may still use: the budget left, less the call's request.
    const outputAllowed = budget.remaining() - tokensOf(this.requestCharacters + this.streamedBefore);
    if (tokensOf(this.streamedInStep) >= outputAllowed) return this.stop(() => budget.spent());
    // The first character count whose tokens reach what is allowed, the next regular look, or the answer's bound.
    this.lookAt = Math.min((outputAllowed - 1) * charactersPerToken + 1, this.streamedInStep + budgetLookEveryCharacters, this.maxText + 1);
  }

  /** Once: the chunks already on their way when the call is stopped change nothing. */
  private stop(stopCall: (() => void) | undefined): void {
    this.stopped = true;
    this.lookAt = Number.POSITIVE_INFINITY;
    stopCall?.();
  }

  /** The text the last step started has streamed (the step in progress, when one is), up to `maxAnswerCharacters`. */
  get partialText(): string {
    return this.text;
  }

  /**
   * The estimated usage of a step that began and never finished (the stream was cancelled,
   * aborted or failed), undefined when none did. `promptCharacters` is asked only then: the
   * pass's request without what its earlier steps added.
   */
  cutShortUsage(promptCharacters: () => number): TokenUsage | undefined {
    if (!this.open) return undefined;
    return estimatedCallUsage({ requestCharacters: promptCharacters() + this.streamedBefore, streamedCharacters: this.streamedInStep });
  }

  /**
   * The estimated usage of a step the provider ended with an error event after it had streamed
   * `streamedCharacters`: the AI SDK finishes it without usage. Undefined when it streamed
   * nothing (a refusal, which is not billed).
   */
  failedStepUsage(streamedCharacters: number, promptCharacters: () => number): TokenUsage | undefined {
    if (streamedCharacters === 0) return undefined;
    return estimatedCallUsage({ requestCharacters: promptCharacters() + this.streamedBefore, streamedCharacters });
  }
}

/** The characters of a model pass's request: its system prompt and messages (tool definitions left out), to estimate its input tokens. */
export function promptCharacters(system: string | undefined, state: { messages: readonly { message: unknown }[] }): number {
  let characters = system?.length ?? 0;
  for (const stored of state.messages) characters += JSON.stringify(stored.message).length;
  return characters;
}
