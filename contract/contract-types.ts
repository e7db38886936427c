import type { UIMessage, UIMessageChunk } from 'ai';
import type { FromSchema } from 'json-schema-to-ts';
import type { agentListView, agentConfigBody, createdAccountView, signupBody } from './account-views.js';
import type { accountView, agentView, pendingApprovalView, pendingAsyncToolView, rootView, tokenUsageView } from './common-views.js';
import type { cronJobCreateBody, cronJobListView, cronJobPatchBody, cronJobView, cronRunListView, cronRunView } from './cron-job-views.js';
import type { agentSummaryListView, agentSummaryView } from './playground-views.js';
import type { cancelAnswerView, compactionAnswerView, completionBody } from './run-control-views.js';
import type { asyncSubmittedView, chatAnswerView, completionAnswerView, conversationView, documentedChatBody, statusRowView } from './turn-views.js';
import type { approvalDeniedData, asyncToolSettledData, compactionData, messageMetadataView } from './ui-message-views.js';
import type { usageQuery, usageReportView } from './usage-views.js';
import type { workspaceListingView, workspaceWrittenView } from './workspace-views.js';

/**
 * The API's TypeScript types, each derived from the JSON Schema the server validates or
 * serializes with (`FromSchema`), so a field added to a schema reaches every client at once.
 */

export type ServiceRoot = FromSchema<typeof rootView>;
export type Account = FromSchema<typeof accountView>;
export type CreatedAccount = FromSchema<typeof createdAccountView>;
export type SignupRequest = FromSchema<typeof signupBody>;
export type Agent = FromSchema<typeof agentView>;
export type AgentList = FromSchema<typeof agentListView>;
export type AgentConfigRequest = FromSchema<typeof agentConfigBody>;
/** An agent config as sent (`provider`, `system`, `tools`, ...); the server checks its fields. */
export type AgentConfig = Record<string, unknown>;
export type TokenUsage = FromSchema<typeof tokenUsageView>;
export type PendingApproval = FromSchema<typeof pendingApprovalView>;
export type PendingAsyncTool = FromSchema<typeof pendingAsyncToolView>;

export type ChatRequest = FromSchema<typeof documentedChatBody>;
export type ChatAnswer = FromSchema<typeof chatAnswerView>;
export type TurnStatus = ChatAnswer['status'];
export type AsyncSubmitted = FromSchema<typeof asyncSubmittedView>;
export type StatusRow = FromSchema<typeof statusRowView>;
export type EventStatus = StatusRow['status'];
export type StoredConversation = FromSchema<typeof conversationView>;
export type CompletionRequest = FromSchema<typeof completionBody>;
export type CompletionAnswer = FromSchema<typeof completionAnswerView>;
export type CancelAnswer = FromSchema<typeof cancelAnswerView>;
/** `POST /agents/{agentId}/conversations/{conversationKey}/compact`. */
export type CompactionAnswer = FromSchema<typeof compactionAnswerView>;
/** How a request meets a conversation that already runs a turn (`busy` in a chat body, `config.busy` of an agent). */
export type BusyMode = NonNullable<Extract<ChatRequest, { conversationKey: string }>['busy']>;

export type CronJob = FromSchema<typeof cronJobView>;
export type CronJobList = FromSchema<typeof cronJobListView>;
export type CronRun = FromSchema<typeof cronRunView>;
export type CronRunList = FromSchema<typeof cronRunListView>;
export type CronJobCreateRequest = FromSchema<typeof cronJobCreateBody>;
export type CronJobPatchRequest = FromSchema<typeof cronJobPatchBody>;

export type UsageQuery = FromSchema<typeof usageQuery>;
export type UsageReport = FromSchema<typeof usageReportView>;

export type WorkspaceListing = FromSchema<typeof workspaceListingView>;
export type WorkspaceFile = WorkspaceListing['files'][number];
export type WorkspaceWritten = FromSchema<typeof workspaceWrittenView>;

export type AgentSummary = FromSchema<typeof agentSummaryView>;
export type AgentSummaryList = FromSchema<typeof agentSummaryListView>;

/** `messageMetadata` of a turn's stream: `start` names the turn and its event, `finish` how it ended. */
export type HarnessMessageMetadata = FromSchema<typeof messageMetadataView>;

/** The stream's data parts, by name: a `data-<name>` part carries `data` of that type. */
export type HarnessDataParts = {
  'async-tool-settled': FromSchema<typeof asyncToolSettledData>;
  'approval-denied': FromSchema<typeof approvalDeniedData>;
  /** The history was compacted before a model call (docs/context.md). */
  compaction: FromSchema<typeof compactionData>;
  /** The turn's structured output (`config.model.output` or the request's `output`), validated against its schema. */
  output: unknown;
};

/** A UI message of a harness turn, as `useChat` and `readUIMessageStream` build it from the stream. */
export type HarnessUIMessage = UIMessage<HarnessMessageMetadata, HarnessDataParts>;
/** One chunk of a harness turn's stream (the AI SDK UI message stream protocol). */
export type HarnessUIMessageChunk = UIMessageChunk<HarnessMessageMetadata, HarnessDataParts>;
