import { describe, expect, it } from 'vitest';
import { promptCharacters, StepInProgress } from './step-in-progress.js';

describe('StepInProgress', () => {
  it('estimates a step cut short from its request and what it streamed, and nothing once the step finished', () => {
    const step = new StepInProgress();
    step.observe({ type: 'start-step' });
    step.observe({ type: 'text-delta', id: 't', delta: 'x'.repeat(40) });
    step.observe({ type: 'finish-step' });
    expect(step.cutShortUsage(() => 400)).toBeUndefined();
    step.observe({ type: 'start-step' });
    step.observe({ type: 'text-delta', id: 't', delta: 'abcd' });
    step.observe({ type: 'reasoning-delta', id: 'r', delta: 'efgh' });
    step.observe({ type: 'tool-input-delta', toolCallId: 'c', inputTextDelta: 'ij' });
    // Output: 10 characters, 3 tokens; input: the prompt and the 40 characters of the first step, 440 -> 110.
    expect(step.cutShortUsage(() => 400)).toEqual({ inputTokens: 110, outputTokens: 3, totalTokens: 113, estimatedTokens: 113 });
    expect(step.partialText).toBe('abcd');
  });

  it('counts the system prompt and every stored message of the request', () => {
    expect(promptCharacters('Be brief.', { messages: [{ message: { role: 'user', content: 'hi' } }] })).toBe(9 + JSON.stringify({ role: 'user', content: 'hi' }).length);
  });
});
