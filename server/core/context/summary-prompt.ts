import type { ModelMessage } from 'ai';
import { estimateTextTokens } from './token-count.js';

/**
 * The first line of our summary prompt. The fixture model (fixtures/model-server) answers a
 * request whose instructions start with it with a summary of its own.
 */
export const summaryPromptHeading = '[harness context summary]';

/** The instructions of a summary call: what a summary must keep for the conversation to go on. */
export const summaryPrompt = `${summaryPromptHeading}
You compact a long conversation between a user and an AI agent that uses tools. You get the
previous summary (when there is one) and the transcript of the messages that follow it. Write
the new summary that replaces both; the agent will continue the conversation from it and the
most recent messages, so anything you leave out is lost.

Keep, in this order, as short bullet points:
1. Goals: what the user wants overall and in the latest requests.
2. Decisions and preferences the user stated, and constraints the agent must respect.
3. Facts learned: names, numbers, identifiers, file paths, URLs, dates, exactly as written.
4. Tool outcomes: which tool was called for what, and the result that matters (errors too).
5. Open tasks: what is still to be done or was promised, and any question left unanswered.

Do not invent anything. Do not answer the user. Write in the conversation's language. Be concise.`;

/** The text a summary is sent as, in a user message at the start of what the model gets. */
export function summaryMessageText(summary: string): string {
  return `Summary of the earlier part of this conversation (written by the service; the messages it covers are no longer sent):\n${summary}`;
}

/** Each part of a message as one transcript line; tool outputs cut to `maxToolTokens`. */
function partLines(message: ModelMessage, maxToolTokens: number): string[] {
  const speaker = message.role === 'user' ? 'User' : message.role === 'assistant' ? 'Assistant' : message.role === 'tool' ? 'Tool' : 'System';
  if (typeof message.content === 'string') return [`${speaker}: ${message.content}`];
  const lines: string[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        lines.push(`${speaker}: ${part.text}`);
        break;
      case 'tool-call':
        lines.push(`Assistant called ${part.toolName}(${JSON.stringify(part.input)})`);
        break;
      case 'tool-result': {
        const output = part.output.type === 'text' || part.output.type === 'error-text' ? part.output.value : JSON.stringify('value' in part.output ? part.output.value : part.output.type);
        const limit = maxToolTokens * 4;
        lines.push(`Result of ${part.toolName}: ${output.length > limit ? `${output.slice(0, limit)} [cut]` : output}`);
        break;
      }
      case 'tool-approval-response':
        lines.push(`User ${part.approved ? 'approved' : 'denied'} a tool call${part.reason ? ` (${part.reason})` : ''}`);
        break;
      case 'file':
      case 'image':
        lines.push(`${speaker} attached a file`);
        break;
      default:
        break;
    }
  }
  return lines;
}

/** The transcript of `messages`, split into chunks of at most `maxTokens` (one message may be cut to fit). */
export function transcriptChunks(messages: readonly ModelMessage[], maxTokens: number, maxToolTokens: number): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let currentTokens = 0;
  for (const message of messages) {
    for (const line of partLines(message, maxToolTokens)) {
      const fitted = estimateTextTokens(line) > maxTokens ? `${line.slice(0, maxTokens * 4 - 20)} [cut]` : line;
      const tokens = estimateTextTokens(fitted) + 1;
      if (currentTokens + tokens > maxTokens && current.length > 0) {
        chunks.push(current.join('\n'));
        current = [];
        currentTokens = 0;
      }
      current.push(fitted);
      currentTokens += tokens;
    }
  }
  if (current.length > 0) chunks.push(current.join('\n'));
  return chunks;
}
