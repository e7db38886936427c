import type { ModelMessage, UIMessageChunk } from 'ai';
import type { PendingAsyncToolView } from '../async-tools/async-tool-result.js';
import type { PendingApprovalView } from '../conversations/conversation.js';
import type { BusyApplied, BusyMode } from '../agent-config/busy-mode.js';
import type { TransportKind } from '../transports/transports.js';
import type { TokenUsage } from '../usage/token-usage.js';
import type { TurnInput, TurnStatus } from './turn-input.js';
import type { TurnOverrides } from '../agent-config/run-overrides.js';

/** How a turn treats a tool that needs approval: ask the caller, or deny (channels, cron). */
export type ApprovalPolicy = 'ask' | 'deny';

export interface TurnRequest {
  accountId: string;
  agentId: string;
  conversationKey: string;
  /** A user message or approval answers; none for a continuation after async tools. */
  input?: TurnInput;
  /** The request's `model` settings and `instructions`, for this run only (its continuations too). */
  overrides?: TurnOverrides;
  transport: TransportKind;
  /**
   * The end user the conversation belongs to, when the caller authenticated one (end-user
   * tokens, a later issue; a subagent's caller passes on its own). Unset, memory derives it from
   * the conversation key (server/core/memory/memory-scope.ts).
   */
  user?: string;
  /** What a user message does when a turn already runs on its conversation (the request's `busy`; default: the agent's `config.busy`, then the transport's). */
  busy?: BusyMode;
  approvalPolicy: ApprovalPolicy;
  /** The reason the model and the user are given when `approvalPolicy` is `deny`. */
  denialReason?: (toolName: string) => string;
  /** The status row this turn reports to (created when the turn waits for async tools). */
  eventId?: string;
  /** Where a continuation replies on non-SSE paths (NATS subject, channel chat...). */
  replyTarget?: Record<string, unknown>;
  /**
   * The account as the request's own bearer check read it, moments before (HTTP). The turn's
   * disabled check uses that read instead of reading the same row again; drivers without a
   * bearer check (webhooks, cron, the background worker, continuations) leave it out.
   */
  accountReadByRequest?: AccountReading;
  /** Cancels the turn when it aborts, as a cancel request would (a subagent's turn follows its caller's tool call). */
  signal?: AbortSignal;
}

/** What the disabled check needs of an account row read earlier in the same request. */
export interface AccountReading {
  accountId: string;
  disabled: boolean;
  /** The operator's daily token limit of the account, as read (undefined: none of its own). */
  tokensPerDay?: number;
}

/** What a turn may take from the account row its request read (its bearer check). */
export function accountReadingOf(account: { accountId: string; disabled: boolean; tokensPerDay?: number }): AccountReading {
  return { accountId: account.accountId, disabled: account.disabled, ...(account.tokensPerDay !== undefined ? { tokensPerDay: account.tokensPerDay } : {}) };
}

export interface DeniedApproval {
  toolName: string;
  reason: string;
}

export interface TurnResult {
  turnId: string;
  eventId: string;
  conversationKey: string;
  status: TurnStatus;
  /** The text the model wrote in this turn. */
  text: string;
  /** This turn's new messages, input included. */
  messages: ModelMessage[];
  pendingApprovals: PendingApprovalView[];
  pendingAsyncTools: PendingAsyncToolView[];
  /** Approvals this turn denied on its own (policy `deny`), for a channel to explain. */
  deniedApprovals: DeniedApproval[];
  /**
   * Set when `status` is `failed`: `upstream` when the model failed, `budget` when the account's
   * daily token budget stopped the turn before a model call (`retryAfterSeconds`: until UTC midnight),
   * `output` when the model's final answer did not hold a valid structured output.
   */
  error?: { kind: 'upstream' | 'internal' | 'budget' | 'output'; message: string; retryAfterSeconds?: number };
  /** The validated structured output (`config.model.output` or the request's `output`) of a completed turn. */
  output?: { value: unknown };
  /** The busy mode that applied when the message met a running turn, and the run it met or was handed to. */
  busy?: BusyApplied;
  /** The tokens of this run's model calls (a continuation's run counts its own calls only). */
  usage?: TokenUsage;
  /** Each model call of this run, in order: what `usage` sums. */
  usageByCall?: TokenUsage[];
}

export interface StartedTurn {
  turnId: string;
  eventId: string;
  /** The AI SDK UI message stream of the turn. It runs to the end whether or not it is read. */
  stream: ReadableStream<UIMessageChunk>;
  result: Promise<TurnResult>;
}

/** The limits a turn enforces (see `server/core/limits/service-limits.ts`). */
export interface TurnLimits {
  maxConcurrentTurnsPerAccount: number;
  maxMessageCharacters: number;
  maxConversationMessages: number;
  maxToolOutputBytes: number;
}
