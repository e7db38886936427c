import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { usagePerMessage } from './step-usage.js';

const assistant = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });
const tool: ModelMessage = { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 't', output: { type: 'text', value: 'ok' } }] };
const usage = (totalTokens: number) => ({ inputTokens: totalTokens - 1, outputTokens: 1, totalTokens });

describe('usagePerMessage', () => {
  it('puts each model call on the assistant message it produced, none on tool messages', () => {
    const messages = [assistant('calling'), tool, assistant('done')];
    const steps = [
      { usage: usage(10), messageCount: 2 },
      { usage: usage(20), messageCount: 3 },
    ];
    expect(usagePerMessage(messages, steps)).toEqual([usage(10), undefined, usage(20)]);
  });

  it('adds a call that produced no assistant message to the next one, or to the last one when none follows', () => {
    const steps = [
      { usage: usage(5), messageCount: 0 },
      { usage: usage(7), messageCount: 1 },
    ];
    expect(usagePerMessage([assistant('a')], steps)).toEqual([{ inputTokens: 10, outputTokens: 2, totalTokens: 12 }]);
    const trailing = [
      { usage: usage(7), messageCount: 1 },
      { usage: usage(5), messageCount: 1 },
    ];
    expect(usagePerMessage([assistant('a')], trailing)).toEqual([{ inputTokens: 10, outputTokens: 2, totalTokens: 12 }]);
  });

  it('assigns nothing when the pass stored no message (the model failed)', () => {
    expect(usagePerMessage([], [{ usage: usage(3), messageCount: 1 }])).toEqual([]);
  });
});
