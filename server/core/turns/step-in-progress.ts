import type { UIMessageChunk } from 'ai';
import { estimatedCallUsage } from '../usage/estimated-usage.js';
import type { TokenUsage } from '../usage/token-usage.js';

/**
 * Follows a model pass's stream for the step (model call) in progress: the text it streamed,
 * kept for a cancelled turn to store, and every character it streamed (text, reasoning, tool
 * input), to estimate a call that is cut short before the provider's usage arrives.
 */
export class StepInProgress {
  private open = false;
  private text = '';
  private streamedInStep = 0;
  /** Characters earlier steps of the pass streamed: they are part of the next step's request. */
  private streamedBefore = 0;

  observe(chunk: UIMessageChunk): void {
    switch (chunk.type) {
      case 'start-step':
        this.open = true;
        this.text = '';
        this.streamedInStep = 0;
        return;
      case 'finish-step':
        this.open = false;
        this.streamedBefore += this.streamedInStep;
        this.streamedInStep = 0;
        return;
      case 'text-delta':
        this.text += chunk.delta;
        this.streamedInStep += chunk.delta.length;
        return;
      case 'reasoning-delta':
        this.streamedInStep += chunk.delta.length;
        return;
      case 'tool-input-delta':
        this.streamedInStep += chunk.inputTextDelta.length;
        return;
      default:
        return;
    }
  }

  /** The text the last step started has streamed (the step in progress, when one is). */
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
