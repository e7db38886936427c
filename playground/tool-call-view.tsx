import { type FormEvent, useState } from 'react';

export interface ToolPart {
  type: string;
  toolCallId: string;
  state: string;
  input?: unknown;
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
  const toolName = part.type.slice('tool-'.length);
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
      {part.input !== undefined ? (
        <details open>
          <summary>Input</summary>
          <pre>{json(part.input)}</pre>
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
