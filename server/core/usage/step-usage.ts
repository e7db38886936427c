import type { LanguageModelUsage, ModelMessage } from 'ai';
import { addUsage, type TokenUsage, usageFromModel } from './token-usage.js';

/** One model call (an AI SDK step) of a model pass: its usage and where its messages end. */
export interface StepUsage {
  usage: TokenUsage;
  /** How many response messages the pass had after this step (those made before its first call included). */
  messageCount: number;
}

/**
 * What `onStepEnd` gives, reduced to what the usage needs. `messageCount` is the pass's
 * running count: AI SDK 7's `step.response.messages` holds that step's messages only.
 */
export function stepUsage(step: { usage: LanguageModelUsage }, messageCount: number): StepUsage {
  return { usage: usageFromModel(step.usage), messageCount };
}

/**
 * Which usage goes on which of a pass's response messages: each model call's usage on the
 * assistant message it produced. A call that produced no assistant message (empty content)
 * is added to the next assistant message, or to the last one when none follows, so the
 * messages of a pass always add up to the pass's usage when it has an assistant message.
 */
export function usagePerMessage(messages: readonly ModelMessage[], steps: readonly StepUsage[]): (TokenUsage | undefined)[] {
  const assigned: (TokenUsage | undefined)[] = messages.map(() => undefined);
  let carried: TokenUsage | undefined;
  let lastAssistant: number | undefined;
  let start = 0;
  for (const step of steps) {
    const end = Math.min(step.messageCount, messages.length);
    carried = carried ? addUsage(carried, step.usage) : step.usage;
    for (let index = start; index < end; index += 1) {
      if (messages[index]?.role !== 'assistant') continue;
      assigned[index] = carried;
      carried = undefined;
      lastAssistant = index;
      break;
    }
    start = Math.max(start, end);
  }
  if (carried && lastAssistant !== undefined) assigned[lastAssistant] = addUsage(assigned[lastAssistant]!, carried);
  return assigned;
}
