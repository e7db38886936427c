import { type FormEvent, useState } from 'react';

/** A `tool-<name>` part, or a `dynamic-tool` part (a tool the SDK did not know when it parsed the call, which names it in `toolName`). */
export interface ToolPart {
  type: string;
  toolName?: string;
  toolCallId: string;
  state: string;
  input?: unknown;
  /** The input as the model sent it, when it could not be parsed or checked (an `output-error` part). */
  rawInput?: unknown;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; approved?: boolean; reason?: string };
}

interface ToolCallViewProps {
  part: ToolPart;
  onAnswer: (approvalId: string, approved: boolean, reason: string) => void;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

function isPendingAsync(output: unknown): boolean {
  return typeof output === 'object' && output !== null && (output as { status?: unknown }).status === 'processing';
}

function stateLabel(part: ToolPart): string {
  switch (part.state) {
    case 'input-streaming':
      return 'preparing';
    case 'input-available':
      return 'running';
    case 'approval-requested':
      return 'waiting for approval';
    case 'approval-responded':
      return part.approval?.approved ? 'approved' : 'denied';
    case 'output-available':
      return isPendingAsync(part.output) ? 'async: pending' : 'done';
    case 'output-error':
      return 'failed';
    case 'output-denied':
      return 'denied';
    default:
      return part.state;
  }
}

/** One tool call: its name, state, input and output, and the approval form when it asks. */
export function ToolCallView({ part, onAnswer }: ToolCallViewProps) {
  const toolName = part.type === 'dynamic-tool' ? (part.toolName ?? 'unknown tool') : part.type.slice('tool-'.length);
  const [reason, setReason] = useState('');
  const reasonId = `reason-${part.toolCallId}`;
  const answer = (approved: boolean) => (event?: FormEvent) => {
    event?.preventDefault();
    if (part.approval) onAnswer(part.approval.id, approved, reason.trim());
  };

  return (
    <section className={`tool-call state-${part.state}`} aria-label={`Tool ${toolName}`} data-tool-call-id={part.toolCallId}>
      <header>
        <span className="tool-name">{toolName}</span>
        <span className="tool-state" data-state={part.state}>{stateLabel(part)}</span>
      </header>
      {part.input !== undefined || part.rawInput !== undefined ? (
        <details open>
          <summary>Input</summary>
          <pre>{json(part.input ?? part.rawInput)}</pre>
        </details>
      ) : null}
      {part.state === 'output-available' ? (
        <details open>
          <summary>Output</summary>
          <pre>{json(part.output)}</pre>
        </details>
      ) : null}
      {part.state === 'output-error' ? <p className="error">{part.errorText}</p> : null}
      {part.approval?.reason ? <p className="note">Reason: {part.approval.reason}</p> : null}
      {part.state === 'approval-requested' && part.approval ? (
        <form className="approval" onSubmit={answer(true)}>
          <label htmlFor={reasonId}>Reason (optional)</label>
          <input id={reasonId} type="text" maxLength={2000} value={reason} onChange={(event) => setReason(event.target.value)} />
          <div className="buttons">
            <button type="submit">Approve</button>
            <button type="button" className="deny" onClick={answer(false)}>Deny</button>
          </div>
        </form>
      ) : null}
    </section>
  );
}
