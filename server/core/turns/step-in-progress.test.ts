import { describe, expect, it } from 'vitest';
import { budgetLookEveryCharacters, promptCharacters, StepInProgress } from './step-in-progress.js';

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

describe('StepInProgress with limits', () => {
  const delta = (characters: number) => ({ type: 'text-delta' as const, id: 't', delta: 'x'.repeat(characters) });

  it('stops the call once the request and its output reach what the budget has left, looking at the budget only now and then', () => {
    const left = 1_000;
    let looks = 0;
    let stops = 0;
    const step = new StepInProgress({
      budget: {
        remaining: () => {
          looks += 1;
          return left;
        },
        requestCharacters: () => 400, // 100 tokens: 900 left for the output, 3,600 characters
        spent: () => (stops += 1),
      },
    });
    step.observe({ type: 'start-step' });
    for (let index = 0; index < 89; index += 1) step.observe(delta(40)); // 3,560 characters, 890 tokens
    expect(stops).toBe(0);
    expect(looks).toBe(1);
    step.observe(delta(40)); // 3,600: 900 tokens, what was left
    expect(stops).toBe(1);
    expect(looks).toBe(2);
    expect(step.cutShortUsage(() => 400)).toEqual({ inputTokens: 100, outputTokens: 900, totalTokens: 1_000, estimatedTokens: 1_000 });
    // Stopped once: the chunks already on their way change nothing.
    step.observe(delta(40));
    expect(stops).toBe(1);
  });

  it('sees the calls that end meanwhile: another look within budgetLookEveryCharacters', () => {
    let left = 1_000_000;
    let stopped = false;
    const step = new StepInProgress({ budget: { remaining: () => left, requestCharacters: () => 0, spent: () => (stopped = true) } });
    step.observe({ type: 'start-step' });
    step.observe(delta(10));
    left = 0; // another turn of the account spent the rest
    step.observe(delta(budgetLookEveryCharacters - 20));
    expect(stopped).toBe(false);
    step.observe(delta(20));
    expect(stopped).toBe(true);
  });

  it('stops a call that streams more than maxAnswerCharacters (text, reasoning, tool input), once', () => {
    let tooLong = 0;
    const step = new StepInProgress({ maxAnswerCharacters: 100, answerTooLong: () => (tooLong += 1) });
    step.observe({ type: 'start-step' });
    step.observe(delta(60));
    step.observe({ type: 'reasoning-delta', id: 'r', delta: 'x'.repeat(40) });
    expect(tooLong).toBe(0);
    step.observe({ type: 'tool-input-delta', toolCallId: 'c', inputTextDelta: 'x' });
    expect(tooLong).toBe(1);
    step.observe(delta(60));
    expect(tooLong).toBe(1);
  });

  it('keeps at most maxAnswerCharacters of the cut text, still counting all of it', () => {
    const step = new StepInProgress({ maxAnswerCharacters: 10 });
    step.observe({ type: 'start-step' });
    step.observe({ type: 'text-delta', id: 't', delta: 'abcdef' });
    step.observe({ type: 'text-delta', id: 't', delta: 'ghijkl' });
    step.observe({ type: 'text-delta', id: 't', delta: 'mnop' });
    expect(step.partialText).toBe('abcdefghij');
    expect(step.cutShortUsage(() => 0)?.outputTokens).toBe(4);
  });
});
