import type { ModelMessage } from 'ai';
import { charactersPerToken, estimateTextTokens } from './token-count.js';

type ToolResultOutput = Extract<Exclude<ModelMessage['content'], string>[number], { type: 'tool-result' }>['output'];

function outputText(output: ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    default:
      return JSON.stringify(output);
  }
}

/** A tool output's tokens, estimated. */
export function toolOutputTokens(output: ToolResultOutput): number {
  return estimateTextTokens(outputText(output));
}

/** The stub an old tool output above the bound is sent as (the stored conversation keeps it whole). */
export function prunedOutputStub(tokens: number): string {
  return `[tool output of about ${tokens} tokens omitted from the context; the conversation keeps it]`;
}

/** An oversized tool output cut to `maxTokens`, with a marker saying so. */
export function cutOutput(output: ToolResultOutput, maxTokens: number): ToolResultOutput {
  const text = outputText(output);
  const tokens = estimateTextTokens(text);
  if (tokens <= maxTokens) return output;
  const kept = text.slice(0, Math.max(0, maxTokens * charactersPerToken - 120));
  const marker = `\n[cut: this tool output was about ${tokens} tokens; only its first ${maxTokens} are in the context]`;
  return { type: output.type === 'error-text' || output.type === 'error-json' ? 'error-text' : 'text', value: kept + marker };
}

function mapToolResults(message: ModelMessage, change: (output: ToolResultOutput) => ToolResultOutput): ModelMessage {
  if (message.role !== 'tool' && message.role !== 'assistant') return message;
  if (typeof message.content === 'string') return message;
  let changed = false;
  const content = message.content.map((part) => {
    if (part.type !== 'tool-result') return part;
    const output = change(part.output);
    if (output === part.output) return part;
    changed = true;
    return { ...part, output };
  });
  return changed ? ({ ...message, content } as ModelMessage) : message;
}

/** Every tool output above `maxTokens` cut to it (a single oversized result never takes the window). */
export function capToolOutputs(messages: readonly ModelMessage[], maxTokens: number): ModelMessage[] {
  return messages.map((message) => mapToolResults(message, (output) => cutOutput(output, maxTokens)));
}

/**
 * The messages before `recentStart` pruned for sending: tool outputs above
 * `maxToolOutputTokens` become a stub, reasoning is left out (a stub when the message had
 * nothing else). The stored conversation is not touched.
 */
export function pruneOlderMessages(messages: readonly ModelMessage[], recentStart: number, maxToolOutputTokens: number): ModelMessage[] {
  return messages.map((message, index) => {
    if (index >= recentStart) return message;
    const stubbed = mapToolResults(message, (output) => {
      const tokens = toolOutputTokens(output);
      return tokens > maxToolOutputTokens ? { type: 'text', value: prunedOutputStub(tokens) } : output;
    });
    if (stubbed.role !== 'assistant' || typeof stubbed.content === 'string' || !stubbed.content.some((part) => part.type === 'reasoning')) return stubbed;
    const content = stubbed.content.filter((part) => part.type !== 'reasoning');
    return { ...stubbed, content: content.length > 0 ? content : [{ type: 'text', text: '[reasoning omitted]' }] } as ModelMessage;
  });
}
