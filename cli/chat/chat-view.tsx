import { Box, Text } from 'ink';
import type { ApprovalRequest, ChatTranscript, TranscriptEntry } from './chat-transcript.js';
import { formatApprovalQuestion, formatAsyncSettled, formatToolCall, truncate } from './tool-line.js';

/**
 * The chat screen's components. Pure: everything comes in as props, so each one is tested
 * with ink-testing-library's `lastFrame()`; the session and keyboard live in `chat-app.tsx`.
 */

/** Width of one compact history line. */
const compactWidth = 120;

export function EntryView({ entry, compact = false }: { entry: TranscriptEntry; compact?: boolean }) {
  const fit = (text: string): string => (compact ? truncate(text, compactWidth) : text);
  // A compact entry keeps to one terminal line.
  const wrap = compact ? 'truncate-end' : 'wrap';
  switch (entry.kind) {
    case 'user':
      return (
        <Text wrap={wrap}>
          <Text bold color="cyan">
            you ›{' '}
          </Text>
          {fit(entry.text)}
        </Text>
      );
    case 'text':
      return <Text wrap={wrap}>{fit(entry.text)}</Text>;
    case 'reasoning':
      return compact ? null : <Text dimColor>{truncate(entry.text, compactWidth)}</Text>;
    case 'tool-call':
      return <Text color={entry.state === 'output-error' || entry.state === 'input-error' ? 'red' : 'yellow'}>{truncate(formatToolCall(entry), compactWidth)}</Text>;
    case 'async-settled':
      return <Text color="yellow">{truncate(formatAsyncSettled(entry), compactWidth)}</Text>;
    case 'source':
      return <Text dimColor>{`↗ ${entry.title ? `${entry.title} ` : ''}${entry.url}`}</Text>;
    case 'error':
      return <Text color="red" wrap={wrap}>{`✗ ${fit(entry.errorText)}`}</Text>;
  }
}

/** The question for one approval request: y/n, then a reason line after n. */
export function ApprovalPrompt({ request, position, total, mode, reason }: { request: ApprovalRequest; position: number; total: number; mode: 'decide' | 'reason'; reason: string }) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="magenta" paddingX={1}>
      <Text bold>{`Approval ${position} of ${total}: ${formatApprovalQuestion(request)}`}</Text>
      {mode === 'decide' ? <Text>y approve · n deny</Text> : <Text>{`Reason for denying (Enter sends, empty for none; Esc goes back): ${reason}█`}</Text>}
    </Box>
  );
}

export function InputLine({ value, busy }: { value: string; busy: boolean }) {
  return (
    <Box>
      <Text bold color="green">
        ›{' '}
      </Text>
      <Text>{value}</Text>
      {busy ? <Text dimColor> (streaming…) Esc or Ctrl-C cancels</Text> : <Text>█</Text>}
    </Box>
  );
}

export interface ApprovalPromptState {
  request: ApprovalRequest;
  position: number;
  total: number;
  mode: 'decide' | 'reason';
  reason: string;
}

export interface ChatViewProps {
  agentId: string;
  conversationKey: string;
  transcript: ChatTranscript;
  /** Entries before this index are prior history, shown compact. */
  historyLength: number;
  busy: boolean;
  input: string;
  /** The approval being asked about, when the turn awaits approval. */
  prompt?: ApprovalPromptState;
}

export function ChatView({ agentId, conversationKey, transcript, historyLength, busy, input, prompt }: ChatViewProps) {
  const history = transcript.entries.slice(0, historyLength);
  const live = transcript.entries.slice(historyLength);
  return (
    <Box flexDirection="column">
      <Text dimColor>{`harness chat · agent ${agentId} · conversation ${conversationKey} · /exit to quit`}</Text>
      {history.length > 0 ? (
        <Box flexDirection="column" marginBottom={1}>
          <Text dimColor>{`── history (${history.length} ${history.length === 1 ? 'entry' : 'entries'}) ──`}</Text>
          {history.map((entry, index) => (
            <EntryView key={`h${index}`} entry={entry} compact />
          ))}
          <Text dimColor>──</Text>
        </Box>
      ) : null}
      {live.map((entry, index) => (
        <EntryView key={`l${index}`} entry={entry} />
      ))}
      {transcript.status === 'cancelled' && !busy ? <Text dimColor>Cancelled; what was written before is kept in the conversation.</Text> : null}
      {transcript.status === 'waiting_async_tools' && !busy ? <Text dimColor>Waiting for async tools; their results land in the conversation.</Text> : null}
      {prompt ? <ApprovalPrompt {...prompt} /> : <InputLine value={input} busy={busy} />}
    </Box>
  );
}
