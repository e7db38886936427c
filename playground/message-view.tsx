import type { HarnessMessageMetadata, HarnessUIMessage } from './harness-client.js';
import { ToolCallView, type ToolPart } from './tool-call-view.js';

interface MessageViewProps {
  message: HarnessUIMessage;
  onAnswer: (approvalId: string, approved: boolean, reason: string) => void;
}

/** The turn's `start`/`finish` metadata as `useChat` merges it, or a stored message's usage (stored-messages.ts). */
type TurnMetadata = HarnessMessageMetadata;

/** "openai/gpt-5" from the usage's provider and model, or undefined when neither was reported. */
function answeredBy(metadata: TurnMetadata | undefined): string | undefined {
  const names = [metadata?.usage?.provider, metadata?.usage?.model].filter((name) => typeof name === 'string' && name !== '');
  return names.length > 0 ? names.join('/') : undefined;
}

const statusNotes: Record<string, string> = {
  awaiting_approval: 'Waiting for your approval.',
  waiting_async_tools: 'Waiting for async tools; their results arrive here.',
  cancelled: 'Cancelled.',
  failed: 'The turn failed.',
};

/** One message: text, tool calls, settled async results, its structured output, how its turn ended and which model answered. */
export function MessageView({ message, onAnswer }: MessageViewProps) {
  const metadata = message.metadata;
  const status = metadata?.status;
  const model = message.role === 'assistant' ? answeredBy(metadata) : undefined;
  return (
    <li className={`message ${message.role}`} data-role={message.role}>
      <span className="role">{message.role === 'user' ? 'You' : 'Agent'}</span>
      {message.parts.map((part, index) => {
        if (part.type === 'text') return <p key={index} className="text">{part.text}</p>;
        // Static tools are `tool-<name>` parts (MCP tools too: the service declares them with a
        // schema); a call of a tool the SDK did not know, or with input it could not parse, is a
        // `dynamic-tool` part. Both show the same card.
        if (part.type.startsWith('tool-') || part.type === 'dynamic-tool') return <ToolCallView key={index} part={part as unknown as ToolPart} onAnswer={onAnswer} />;
        if (part.type === 'data-async-tool-settled') {
          const data = part.data;
          return (
            <section key={index} className="async-settled" aria-label={`Async result ${data.toolName ?? ''}`}>
              <header>
                <span className="tool-name">{data.toolName}</span>
                <span className="tool-state" data-state={`async-${data.status ?? 'settled'}`}>async: {data.status}</span>
              </header>
              <pre>{JSON.stringify(data.response ?? data.error, null, 2)}</pre>
            </section>
          );
        }
        if (part.type === 'data-output') {
          // A JSON value, shown as text: React escapes it, so nothing in it can become markup.
          return (
            <section key={index} className="structured-output" aria-label="Structured output">
              <header>Structured output</header>
              <pre>{JSON.stringify(part.data, null, 2)}</pre>
            </section>
          );
        }
        return null;
      })}
      {status && statusNotes[status] ? <p className={`turn-status status-${status}`}>{statusNotes[status]}</p> : null}
      {model ? <p className="answered-by">answered by {model}</p> : null}
    </li>
  );
}
