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

export interface HarnessCoreOptions {
  storage: Storage;
  infrastructure: InfrastructureDefinition;
  secrets: RuntimeSecrets;
  logger?: Logger;
  now?: () => Date;
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
}

export function createHarnessCore(options: HarnessCoreOptions): HarnessCore {
  const now = options.now ?? (() => new Date());
  const { tables } = options.infrastructure;
  const cipher = new ConfigCipher(options.secrets.configEncryptionSecret);
  const accounts = new Accounts(new AccountsRepository(options.storage.table(tables.accounts)), options.secrets.adminSecret, now);
  const agents = new Agents(new AgentsRepository(options.storage.table<StoredAgent>(tables.agents), cipher), now);
  return { infrastructure: options.infrastructure, logger: options.logger ?? silentLogger, accounts, agents };
}
