import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { cutPoints, olderPartEnd, windowStart } from './cut-points.js';
import { capToolOutputs, pruneOlderMessages } from './pruning.js';
import { isContextOverflow } from './overflow-error.js';
import { modelWindowOf } from './model-windows.js';

const user = (text: string): ModelMessage => ({ role: 'user', content: text });
const call = (id: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'alphaSearch', input: {} }] });
const result = (id: string, value = 'ok'): ModelMessage => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'alphaSearch', output: { type: 'text', value } }] });
const answer = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });

describe('cut points', () => {
  it('never fall between a tool call and its result, nor after a call still waiting', () => {
    const messages = [user('a'), call('1'), result('1'), answer('x'), user('b'), call('2')];
    expect(cutPoints(messages)).toEqual([0, 1, 3, 4, 5]);
    // A call with no result (an approval or async result pending): nothing after it is a cut point.
    expect(cutPoints([...messages, user('c')])).toEqual([0, 1, 3, 4, 5]);
  });

  it('keep the latest user message and the recent tokens; window keeps what fits', () => {
    const messages = [user('a'), answer('x'), user('b'), call('1'), result('1'), answer('y'), user('c')];
    const tokens = messages.map(() => 10);
    expect(olderPartEnd(messages, tokens, 25)).toBe(3);
    expect(olderPartEnd(messages, tokens, 1000)).toBe(0);
    expect(windowStart(messages, tokens, 30)).toBe(5);
    // Even when nothing fits, the latest user message stays.
    expect(windowStart(messages, tokens, 1)).toBe(6);
  });
});

describe('pruning', () => {
  it('stubs old large tool outputs, keeps recent ones, and cuts an oversized one with a marker', () => {
    const big = 'x'.repeat(8_000);
    const messages = [user('a'), call('1'), result('1', big), user('b'), call('2'), result('2', big)];
    const pruned = pruneOlderMessages(messages, 3, 100);
    expect(JSON.stringify(pruned[2])).toContain('omitted from the context');
    expect(pruned[5]).toBe(messages[5]);
    const capped = capToolOutputs(messages, 500);
    expect(JSON.stringify(capped[5])).toContain('[cut: this tool output was about 2000 tokens');
    expect(JSON.stringify(capped[5]).length).toBeLessThan(2_400);
  });
});

describe('windows and overflow errors', () => {
  it('takes config.model.contextWindow over the catalog over the default', () => {
    expect(modelWindowOf({ provider: 'openai', id: 'fixture-model' }).contextWindow).toBe(32_000);
    expect(modelWindowOf({ provider: 'anthropic', id: 'claude-sonnet-4-5' }).contextWindow).toBe(200_000);
    expect(modelWindowOf({ provider: 'openai', id: 'gpt-4o', contextWindow: 8_000 })).toMatchObject({ contextWindow: 8_000, inputBudget: 7_000 });
  });

  it("recognizes each provider's context-length error", () => {
    expect(isContextOverflow(new Error("This model's maximum context length is 8192 tokens."))).toBe(true);
    expect(isContextOverflow(new Error('prompt is too long: 210000 tokens > 200000 maximum'))).toBe(true);
    expect(isContextOverflow(new Error('The input token count (2000000) exceeds the maximum number of tokens allowed (1048576).'))).toBe(true);
    expect(isContextOverflow(new Error('Rate limit reached.'))).toBe(false);
  });
});
