import { randomUUID } from 'node:crypto';
import type { AgentConfig } from '../agent-config/agent-config-schema.js';
import type { Agents } from '../agents/agents.js';
import { type CompactionMarker, isValidConversationKey, type StoredMessage } from '../conversations/conversation.js';
import type { ConversationsRepository } from '../conversations/conversations-repository.js';
import { type ConversationLocks, conversationLockKey } from '../coordination/conversation-locks.js';
import type { RunningTurns } from '../coordination/running-turns.js';
import { ConflictError, ConversationBusyError, HarnessError, NotFoundError, UpstreamError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { AgentModel } from '../model/language-model.js';
import { collectSecretValues } from '../secrets/redaction.js';
import { describeModelError } from '../turns/model-error.js';
import { RunUsageRecorder } from '../turns/run-usage-recorder.js';
import { saveConversation } from '../turns/save-conversation.js';
import type { AccountUsage } from '../usage/account-usage.js';
import type { ContextManager } from './context-manager.js';

/** The answer of `POST /agents/{agentId}/conversations/{conversationKey}/compact`. */
export interface CompactionAnswer {
  conversationKey: string;
  /** False when nothing was older than the latest turn: no summary was written. */
  compacted: boolean;
  /** The next model call's input tokens (system prompt and history; tools not counted), estimated before and after. */
  tokensBefore: number;
  tokensAfter: number;
  /** Messages folded into the summary. */
  messages: number;
  /** The summary marker appended to the conversation, as `GET .../conversations/{key}` shows it. */
  marker?: StoredMessage['message'] & { compaction: CompactionMarker };
}

export interface ConversationCompactionOptions {
  agents: Pick<Agents, 'load'>;
  conversations: ConversationsRepository;
  runningTurns: Pick<RunningTurns, 'findRunning'>;
  locks: ConversationLocks;
  context: ContextManager;
  /** The agent's model, as its turns build it (the service's model `fetch`). */
  createModel: (config: AgentConfig) => AgentModel;
  /** Where the summary calls are counted (the account's daily usage and budget). */
  usage: Pick<AccountUsage, 'record' | 'checkBudget'>;
  logger: Logger;
  now: () => Date;
}

/**
 * Compaction on demand: the conversation's older part (everything before its latest turn) is
 * summarized now, under the conversation's lock as a turn would, and the marker stored. A turn
 * running on the conversation is a 409 `conversation_busy` (compacting would wait out the whole
 * turn, and the turn compacts by itself when it needs to).
 */
export class ConversationCompaction {
  constructor(private readonly options: ConversationCompactionOptions) {}

  /** Another account's agent, an unknown agent or conversation: 404. `config.context.strategy: "off"`: 409. */
  async compact(accountId: string, agentId: string, conversationKey: string): Promise<CompactionAnswer> {
    const { options } = this;
    const agent = await options.agents.load(accountId, agentId);
    if (!isValidConversationKey(conversationKey)) throw new NotFoundError(`No conversation "${conversationKey}" with this agent.`);
    if (agent.config.context?.strategy === 'off') {
      throw new ConflictError(`Agent "${agentId}" has config.context.strategy "off": its turns send the whole history, so a summary would never be used.`);
    }
    await this.refuseWhileRunning(accountId, agentId, conversationKey);
    await options.usage.checkBudget(accountId);
    const release = await options.locks.acquire(conversationLockKey(accountId, agentId, conversationKey));
    try {
      // A turn that started between the check and the lock has ended by now: the lock was its.
      const timestamp = options.now().toISOString();
      const loaded = await options.conversations.load(accountId, agentId, conversationKey, timestamp);
      if (loaded.version === null) throw new NotFoundError(`No conversation "${conversationKey}" with this agent.`);
      const state = loaded.state;
      const agentModel = options.createModel(agent.config);
      const recorder = new RunUsageRecorder(options.usage, { accountId, agentId, startsTurn: false });
      let prepared: Awaited<ReturnType<ContextManager['prepare']>>;
      try {
        prepared = await options.context.prepare({ state, config: agent.config, agentModel, system: agent.config.system ?? '', tools: undefined, signal: new AbortController().signal, turnId: `compact_${randomUUID()}`, now: timestamp, force: 'manual' });
      } catch (error) {
        if (error instanceof HarnessError) throw error;
        throw new UpstreamError(`The summary call failed: ${describeModelError(error, collectSecretValues(agent.config))}`, { cause: error });
      }
      recorder.add(prepared.summaryCalls);
      const marker = prepared.marker;
      if (marker?.compaction) {
        state.updatedAt = timestamp;
        await saveConversation(options.conversations, state, loaded.version);
      }
      await recorder.flush();
      const compaction = prepared.compaction;
      options.logger.info({ event: 'compaction', agentId, conversationKey, compacted: marker !== undefined, summaryCalls: prepared.summaryCalls.length }, 'conversation compacted on demand');
      const tokensBefore = compaction?.tokensBefore ?? prepared.estimatedTokens;
      return {
        conversationKey,
        compacted: marker?.compaction !== undefined,
        tokensBefore,
        tokensAfter: marker?.compaction ? prepared.estimatedTokens : tokensBefore,
        messages: marker?.compaction ? (compaction?.messages ?? 0) : 0,
        ...(marker?.compaction ? { marker: { ...marker.message, compaction: marker.compaction } } : {}),
      };
    } finally {
      release();
    }
  }

  private async refuseWhileRunning(accountId: string, agentId: string, conversationKey: string): Promise<void> {
    const running = await this.options.runningTurns.findRunning({ accountId, agentId, conversationKey });
    if (running) throw new ConversationBusyError(conversationKey, running.eventId, 'compact it once the turn has ended (a turn compacts by itself when it needs to)');
  }
}
