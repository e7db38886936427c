import type { HarnessDataParts, HarnessMessageMetadata, HarnessUIMessage } from './harness-client.js';

/** The synthetic tool call that carries a settled async result back to the model (docs/async-tools.md). */
export const asyncResultToolName = 'async_tool_result';

type Part = HarnessUIMessage['parts'][number];
type Record_ = Record<string, unknown>;

const isRecord = (value: unknown): value is Record_ => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A stored tool output is `{type: "json" | "text" | "error-text"..., value}`; the page shows the value. */
function outputValue(output: unknown): unknown {
  return isRecord(output) && 'value' in output ? output.value : output;
}

function contentParts(content: unknown): Record_[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

/**
 * The stored conversation (model messages: user, assistant, tool) as the UI messages `useChat`
 * shows, in the same shape the stream builds: one assistant message per turn, a `tool-<name>`
 * part per call with its state, a `data-async-tool-settled` part per settled async result, a
 * `data-output` part for a structured output, and the last model call's `usage` (who answered)
 * as the message's metadata.
 * This reads stored JSON, not the stream: the stream is `useChat`'s alone.
 */
export function storedToUiMessages(stored: unknown[]): HarnessUIMessage[] {
  const messages: HarnessUIMessage[] = [];
  let assistant: HarnessUIMessage | undefined;
  const toolParts = new Map<string, Record_>();
  const startAssistant = (): HarnessUIMessage => {
    if (!assistant) {
      assistant = { id: `stored-${messages.length}`, role: 'assistant', parts: [] };
      messages.push(assistant);
    }
    return assistant;
  };

  for (const message of stored.filter(isRecord)) {
    if (message.role === 'user') {
      assistant = undefined;
      const text = contentParts(message.content)
        .filter((part) => part.type === 'text')
        .map((part) => String(part.text))
        .join('\n');
      messages.push({ id: `stored-${messages.length}`, role: 'user', parts: [{ type: 'text', text }] });
      continue;
    }
    const target = startAssistant();
    // Who answered: the turn's last model call, as the stream's `finish` metadata names it.
    if (message.role === 'assistant' && isRecord(message.usage)) target.metadata = { usage: message.usage as NonNullable<HarnessMessageMetadata['usage']> };
    for (const part of contentParts(message.content)) {
      if (part.type === 'text' && typeof part.text === 'string') {
        target.parts.push({ type: 'text', text: part.text, state: 'done' });
      } else if (part.type === 'tool-call' && part.toolName !== asyncResultToolName) {
        const toolPart: Record_ = { type: `tool-${String(part.toolName)}`, toolCallId: part.toolCallId, state: 'input-available', input: part.input };
        toolParts.set(String(part.toolCallId), toolPart);
        target.parts.push(toolPart as Part);
      } else if (part.type === 'tool-approval-request') {
        const toolPart = toolParts.get(String(part.toolCallId));
        if (toolPart) Object.assign(toolPart, { state: 'approval-requested', approval: { id: part.approvalId } });
      } else if (part.type === 'tool-approval-response') {
        const toolPart = [...toolParts.values()].find((candidate) => isRecord(candidate.approval) && candidate.approval.id === part.approvalId);
        if (!toolPart) continue;
        const approval = { id: part.approvalId, approved: part.approved === true, ...(typeof part.reason === 'string' ? { reason: part.reason } : {}) };
        Object.assign(toolPart, part.approved === true ? { state: 'approval-responded', approval } : { state: 'output-denied', approval });
      } else if (part.type === 'tool-result') {
        if (part.toolName === asyncResultToolName) {
          target.parts.push({ type: 'data-async-tool-settled', data: outputValue(part.output) as HarnessDataParts['async-tool-settled'] });
          continue;
        }
        const toolPart = toolParts.get(String(part.toolCallId));
        if (!toolPart || toolPart.state === 'output-denied') continue;
        const output = part.output;
        if (isRecord(output) && (output.type === 'error-text' || output.type === 'error-json')) Object.assign(toolPart, { state: 'output-error', errorText: typeof output.value === 'string' ? output.value : JSON.stringify(output.value) });
        else if (isRecord(output) && output.type === 'execution-denied') Object.assign(toolPart, { state: 'output-denied' });
        else Object.assign(toolPart, { state: 'output-available', output: outputValue(output) });
      }
    }
    // The turn's structured output, where the stream sends its `data-output` part: after the answer.
    if ('output' in message) target.parts.push({ type: 'data-output', data: message.output });
  }
  return messages;
}

/** The async results a conversation still waits for: outputs that say `processing` with no settled part after them. */
export function pendingAsyncResults(messages: HarnessUIMessage[]): string[] {
  const pending = new Set<string>();
  for (const message of messages) {
    for (const part of message.parts as Record_[]) {
      if (typeof part.type === 'string' && part.type.startsWith('tool-') && isRecord(part.output) && part.output.status === 'processing' && typeof part.output.resultId === 'string') {
        pending.add(part.output.resultId);
      }
      if (part.type === 'data-async-tool-settled' && isRecord(part.data) && typeof part.data.resultId === 'string') pending.delete(part.data.resultId);
    }
  }
  return [...pending];
}
