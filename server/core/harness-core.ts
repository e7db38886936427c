import { AccountsRepository } from './accounts/accounts-repository.js';
import { Accounts } from './accounts/accounts.js';
import type { StoredAgent } from './agents/agent.js';
import { AgentsRepository } from './agents/agents-repository.js';
import { Agents } from './agents/agents.js';
import type { InfrastructureDefinition } from './infrastructure.js';
import { type Logger, silentLogger } from './logger.js';
import { ConfigCipher } from './secrets/config-encryption.js';
import type { RuntimeSecrets } from './secrets/runtime-secrets.js';
import type { Storage } from './storage/table-store.js';
import type { ConversationState } from './conversations/conversation.js';
import { ConversationsRepository } from './conversations/conversations-repository.js';
import { type ToolEnvironment, toolEnvironmentFrom } from './tools/tool-context.js';
import { TurnRunner } from './turns/turn-runner.js';

export interface HarnessCoreOptions {
  storage: Storage;
  infrastructure: InfrastructureDefinition;
  secrets: RuntimeSecrets;
  logger?: Logger;
  now?: () => Date;
  /** Service-wide tool settings; default: from the environment (ALPHA_API_KEY, ALPHA_BASE_URL...). */
  toolEnvironment?: ToolEnvironment;
  /** Retries of a failed model call (default 2; tests use 0). */
  modelMaxRetries?: number;
}

/**
 * Everything the service does, wired once and shared by the account and agent services (and
 * by anything else that drives the core: workers, the scheduler, tests).
 */
export interface HarnessCore {
  infrastructure: InfrastructureDefinition;
  logger: Logger;
  accounts: Accounts;
  agents: Agents;
  conversations: ConversationsRepository;
  turns: TurnRunner;
}

export function createHarnessCore(options: HarnessCoreOptions): HarnessCore {
  const now = options.now ?? (() => new Date());
  const { tables } = options.infrastructure;
  const cipher = new ConfigCipher(options.secrets.configEncryptionSecret);
  const accounts = new Accounts(new AccountsRepository(options.storage.table(tables.accounts)), options.secrets.adminSecret, now);
  const agents = new Agents(new AgentsRepository(options.storage.table<StoredAgent>(tables.agents), cipher), now);
  const logger = options.logger ?? silentLogger;
  const conversations = new ConversationsRepository(options.storage.table<ConversationState>(tables.conversations));
  const turns = new TurnRunner({ agents, conversations, logger, now, toolEnvironment: options.toolEnvironment ?? toolEnvironmentFrom(), modelMaxRetries: options.modelMaxRetries });
  return { infrastructure: options.infrastructure, logger, accounts, agents, conversations, turns };
}
