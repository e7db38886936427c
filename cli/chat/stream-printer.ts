import type { UIMessageChunk } from 'ai';
import type { CliContext } from '../cli-context.js';
import type { ChatTranscript, ToolCallEntry } from './chat-transcript.js';
import { formatAsyncSettled, formatToolCall } from './tool-line.js';

/**
 * Prints a turn as it streams, for `harness chat -m`: the reply text on stdout exactly as
 * it arrives (so it pipes cleanly), tool activity as compact lines on stderr.
 */
export interface StreamPrinter {
  onChunk(chunk: UIMessageChunk, transcript: ChatTranscript): void;
  /** Ends the last text line. */
  finish(): void;
}

export function createStreamPrinter(context: Pick<CliContext, 'stdout' | 'stderr'>): StreamPrinter {
  let wroteText = false;
  let midLine = false;
  const endLine = (): void => {
    if (midLine) context.stdout.write('\n');
    midLine = false;
  };
  const toolLine = (transcript: ChatTranscript, toolCallId: string): void => {
    const entry = transcript.entries.findLast((candidate): candidate is ToolCallEntry => candidate.kind === 'tool-call' && candidate.toolCallId === toolCallId);
    if (!entry) return;
    endLine();
    context.stderr.write(`${formatToolCall(entry)}\n`);
  };
  return {
    onChunk(chunk, transcript) {
      switch (chunk.type) {
        case 'text-start':
          // Text blocks of different steps go on their own lines.
          if (wroteText) endLine();
          return;
        case 'text-delta':
          if (chunk.delta === '') return;
          context.stdout.write(chunk.delta);
          wroteText = true;
          midLine = !chunk.delta.endsWith('\n');
          return;
        case 'tool-input-error':
        case 'tool-approval-request':
        case 'tool-output-available':
        case 'tool-output-error':
        case 'tool-output-denied':
          if (chunk.type === 'tool-output-available' && chunk.preliminary) return;
          toolLine(transcript, chunk.toolCallId);
          return;
        default:
          if (chunk.type === 'data-async-tool-settled') {
            const entry = transcript.entries.at(-1);
            if (entry?.kind === 'async-settled') {
              endLine();
              context.stderr.write(`${formatAsyncSettled(entry)}\n`);
            }
          }
      }
    },
    finish: endLine,
  };
}
