import type { ToolSet } from 'ai';
import type { Agent } from '../agents/agent.js';
import type { AsyncPass } from '../async-tools/async-pass.js';
import type { AsyncToolResultsRepository } from '../async-tools/async-tool-results-repository.js';
import type { AsyncToolCompletions } from '../async-tools/async-tool-completions.js';
import type { ContextManager } from '../context/context-manager.js';
import type { ConversationState } from '../conversations/conversation.js';
import type { RunningTurns } from '../coordination/running-turns.js';
import type { Logger } from '../logger.js';
import type { BusyApplied } from '../agent-config/busy-mode.js';
import type { Steering } from './busy-gate.js';
import type { AgentModel } from '../model/language-model.js';
import type { StructuredOutput } from '../structured-output/structured-output.js';
import type { UnavailableTools } from '../tools/unavailable-tools.js';
import type { AccountUsage } from '../usage/account-usage.js';
import type { RunTokenBudget } from '../usage/run-token-budget.js';
import type { RunReports } from './run-reports.js';
import type { TurnRequest } from './turn-types.js';

/** What the execution of passes needs from the rest of the core, given once by the runner. */
export interface TurnExecutionServices {
  logger: Logger;
  now: () => Date;
  /** Steps per model pass when the agent sets no `maxSteps`. */
  defaultMaxSteps: number;
  /** Retries of a failed model call (the AI SDK's `maxRetries`). */
  modelMaxRetries: number;
  /** The characters one model call may stream (`HARNESS_TURN_MAX_ANSWER_CHARACTERS`; default 1 Mi). */
  maxAnswerCharacters?: number;
  /** Bound on waiting for same-invocation work in one turn. */
  sameInvocationTimeoutMs: number;
  asyncResults: AsyncToolResultsRepository;
  completions: Pick<AsyncToolCompletions, 'settleInProcess' | 'seal' | 'cancelGroup'>;
  /** Where the turn reports what its run's status row must say (runs/ writes it). */
  runReports: RunReports;
  /** Where a running turn registers, so that a cancel request (from any replica) stops it (none: turns cannot be cancelled). */
  runningTurns?: RunningTurns;
  /** Conditional write of the conversation; returns the new version. */
  save(state: ConversationState, version: number | null): Promise<number>;
  /** Steering messages for a running turn, taken at its step boundaries (none: no steering). */
  steering?: Steering;
  /** Where each run's token usage is counted per account, agent and day (none: not counted). */
  usage?: Pick<AccountUsage, 'record'>;
  /** Builds what each model call is sent within the model's window (none: the whole history, as before issue 26). */
  context?: ContextManager;
}

/** Points an async-wrapped tool at the async pass that is running when it is called. */
export interface PassHolder {
  current?: AsyncPass;
}

/** One turn, ready to run: the conversation is locked and the input applied. */
export interface PreparedTurn {
  request: TurnRequest;
  agent: Agent;
  agentModel: AgentModel;
  tools: ToolSet;
  /** Tools the turn could not offer (an MCP server that was down), so a call of one answers why. */
  unavailableTools?: UnavailableTools;
  /** The account's daily token budget as this run opened it, checked before each model call (none: no budget kept). */
  budget?: RunTokenBudget;
  /** The busy mode that applied when the turn's message met a running turn. */
  busy?: BusyApplied;
  /** Memory notes for this turn's model calls: system text after the agent's `system` (never stored). */
  memoryNotes?: string;
  /** The structured value the turn ends with (the request's `output` or `config.model.output`). */
  output?: StructuredOutput;
  state: ConversationState;
  version: number | null;
  turnId: string;
  eventId: string;
  firstNewMessage: number;
  /** Releases the conversation's lock. */
  release: () => void;
  holder: PassHolder;
}
