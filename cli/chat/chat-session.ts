import type { UIMessageChunk } from 'ai';
import { describeError } from '../cli-error.js';
import { toolApprovalMessage, type ApprovalAnswer, type ChatStreamSource, type ToolApprovalMessage } from './chat-stream-source.js';
import {
  addUserMessage,
  applyChunk,
  emptyTranscript,
  endStream,
  failStream,
  pendingApprovals,
  recordApprovalAnswers,
  startStream,
  type ApprovalRecord,
  type ChatTranscript,
} from './chat-transcript.js';

/** How approval requests are answered without asking: `--approve-all` / `--deny-all`. */
export type ApprovalPolicy = 'approve-all' | 'deny-all';

/** The reason the model is told when `--deny-all` denies a call. */
export const denyAllReason = 'Denied by the user (harness chat --deny-all).';

/** Answers every request the same way. */
export function answerAll(requests: readonly ApprovalRecord[], policy: ApprovalPolicy): ApprovalAnswer[] {
  return requests.map((request) =>
    policy === 'approve-all' ? { approvalId: request.approvalId, approved: true } : { approvalId: request.approvalId, approved: false, reason: denyAllReason },
  );
}

export interface ChatSessionOptions {
  source: ChatStreamSource;
  conversationKey: string;
  /** Prior history (see `transcriptFromHistory`). */
  transcript?: ChatTranscript;
  /** Answers approval requests without asking, then streams the continuation. */
  approvalPolicy?: ApprovalPolicy;
  /** Asks the service to cancel the conversation's running turn (its stream then ends with status `cancelled`). */
  cancelRun?: () => Promise<unknown>;
  /** Sees each chunk as it arrives, after the transcript took it in. */
  onChunk?: (chunk: UIMessageChunk, transcript: ChatTranscript) => void;
}

export interface ChatSnapshot {
  transcript: ChatTranscript;
  /** A stream is open (or about to be). */
  busy: boolean;
}

/** Bounds the automatic approve/continue loop in case a service keeps asking. */
const maxAutomaticRounds = 50;

/**
 * The chat controller: sends messages through a stream source, folds the chunks into the
 * transcript and tells subscribers (the Ink hook) after each change. It holds all the
 * side effects, so the Ink components only render snapshots.
 */
export class ChatSession {
  readonly conversationKey: string;
  #snapshot: ChatSnapshot;
  readonly #listeners = new Set<() => void>();
  readonly #options: ChatSessionOptions;
  readonly #abort = new AbortController();

  constructor(options: ChatSessionOptions) {
    this.#options = options;
    this.conversationKey = options.conversationKey;
    this.#snapshot = { transcript: options.transcript ?? emptyTranscript, busy: false };
  }

  /** The current state; a new object after every change (for `useSyncExternalStore`). */
  readonly getSnapshot = (): ChatSnapshot => this.#snapshot;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** Aborts an open stream (the user left); later sends fail at once. */
  close(): void {
    this.#abort.abort();
  }

  /**
   * Cancels the running turn through the service; the open stream goes on to the turn's
   * `finish` (status `cancelled`), so what was written stays in the transcript. A failed
   * request (the turn ended meanwhile: 409) is shown, and the chat stays open.
   */
  async cancel(): Promise<void> {
    if (!this.#snapshot.busy || !this.#options.cancelRun) return;
    try {
      await this.#options.cancelRun();
    } catch (error) {
      const transcript = this.transcript;
      this.#update({ ...transcript, entries: [...transcript.entries, { kind: 'error', errorText: `could not cancel: ${describeError(error).line}` }] });
    }
  }

  get transcript(): ChatTranscript {
    return this.#snapshot.transcript;
  }

  #update(transcript: ChatTranscript, busy = this.#snapshot.busy): void {
    this.#snapshot = { transcript, busy };
    for (const listener of this.#listeners) listener();
  }

  /** Sends user text and streams the reply (and, with a policy, every continuation). */
  async sendText(text: string): Promise<ChatTranscript> {
    this.#update(addUserMessage(this.transcript, text));
    return this.#run(text);
  }

  /** Answers approval requests with one tool message and streams the continuation. */
  async answerApprovals(answers: readonly ApprovalAnswer[]): Promise<ChatTranscript> {
    this.#update(recordApprovalAnswers(this.transcript, answers));
    return this.#run(toolApprovalMessage(answers));
  }

  /** With a policy, answers approvals left pending in the history; otherwise does nothing. */
  async answerPendingApprovals(): Promise<ChatTranscript> {
    const pending = pendingApprovals(this.transcript);
    const policy = this.#options.approvalPolicy;
    if (!policy || pending.length === 0) return this.transcript;
    return this.answerApprovals(answerAll(pending, policy));
  }

  async #run(first: string | ToolApprovalMessage): Promise<ChatTranscript> {
    let message = first;
    for (let round = 0; ; round += 1) {
      await this.#stream(message);
      const pending = pendingApprovals(this.transcript);
      const policy = this.#options.approvalPolicy;
      if (this.transcript.status !== 'awaiting_approval' || !policy || pending.length === 0 || round >= maxAutomaticRounds) return this.transcript;
      const answers = answerAll(pending, policy);
      this.#update(recordApprovalAnswers(this.transcript, answers));
      message = toolApprovalMessage(answers);
    }
  }

  /** One stream. A failure is put in the transcript (for the UI) and thrown (for `-m`). */
  async #stream(message: string | ToolApprovalMessage): Promise<void> {
    this.#update(startStream(this.transcript), true);
    try {
      this.#abort.signal.throwIfAborted();
      const chunks = await this.#options.source.open({ conversationKey: this.conversationKey, message }, this.#abort.signal);
      for await (const chunk of chunks) {
        this.#update(applyChunk(this.transcript, chunk));
        this.#options.onChunk?.(chunk, this.transcript);
      }
      this.#update(endStream(this.transcript), false);
    } catch (error) {
      this.#update(failStream(this.transcript, describeError(error).line), false);
      throw error;
    }
  }
}
