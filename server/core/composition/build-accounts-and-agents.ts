import { AccountsRepository } from '../accounts/accounts-repository.js';
import { Accounts } from '../accounts/accounts.js';
import { checkAgentDestinations } from '../agent-config/agent-destinations.js';
import type { StoredAgent } from '../agents/agent.js';
import { AgentsRepository } from '../agents/agents-repository.js';
import { Agents } from '../agents/agents.js';
import type { Coordination } from '../coordination/coordination.js';
import { cronJobsNamingAgent, CronJobsRepository } from '../cron-jobs/index.js';
import type { CronTableRow } from '../cron-jobs/cron-job.js';
import type { InfrastructureDefinition } from '../infrastructure.js';
import { UntrustedJsonSchemas } from '../json-schema/untrusted-json-schemas.js';
import type { RateBudget } from '../limits/rate-budget.js';
import type { Logger } from '../logger.js';
import { checkMcpServerCount } from '../mcp/mcp-config-schema.js';
import { McpConnections } from '../mcp/mcp-connections.js';
import { OutboundPolicy } from '../outbound/outbound-policy.js';
import { ConfigCipher } from '../secrets/config-encryption.js';
import type { RuntimeSecrets } from '../secrets/runtime-secrets.js';
import type { Storage } from '../storage/table-store.js';
import { StructuredOutput } from '../structured-output/structured-output.js';
import { AccountUsage } from '../usage/account-usage.js';
import { DailyTokenBudget } from '../usage/daily-token-budget.js';
import { UsageRepository, type UsageRow } from '../usage/usage-repository.js';
import type { CoreSettings } from './core-settings.js';

/** What every part of the core is built from: the storage, the secrets and the settings, read once. */
export interface CoreInputs {
  storage: Storage;
  infrastructure: InfrastructureDefinition;
  secrets: RuntimeSecrets;
  settings: CoreSettings;
  coordination: Coordination;
  logger: Logger;
  now: () => Date;
}

/**
 * The parts every run reads and nothing in a run writes back into: accounts, agents (their
 * config checks and deletion guard given as they are built), usage and the daily budget, the
 * outbound policy, MCP connections and the compiler of JSON Schemas from accounts.
 */
export function buildAccountsAndAgents(inputs: CoreInputs) {
  const { storage, settings, coordination, logger, now } = inputs;
  const { tables } = inputs.infrastructure;
  const { limits, signup } = settings;
  const { budgets } = coordination;
  const rateLimiters: { turns: RateBudget; completions: RateBudget; webhooks: RateBudget } = {
    turns: budgets.perMinute('turns', limits.turnRequestsPerMinute),
    completions: budgets.perMinute('completions', limits.completionRequestsPerMinute),
    webhooks: budgets.perMinute('webhooks', limits.webhookRequestsPerMinute),
  };
  const outbound = new OutboundPolicy(settings.outbound);
  const accounts = new Accounts(new AccountsRepository(storage.table(tables.accounts)), inputs.secrets.adminSecret, now, signup, budgets.perMinute('signups', signup.perMinutePerClient));
  // Every JSON Schema someone else wrote (MCP tools' output schemas, structured output) is compiled here: linear-time patterns, bounded.
  const untrustedSchemas = new UntrustedJsonSchemas();
  const cronRepository = new CronJobsRepository(storage.table<CronTableRow>(tables.cronJobs));
  const agents = new Agents(new AgentsRepository(storage.table<StoredAgent>(tables.agents), new ConfigCipher(inputs.secrets.configEncryptionSecret)), {
    now,
    configChecks: [
      (config) => checkAgentDestinations(outbound, config),
      (config) => checkMcpServerCount(config.mcp, settings.mcp.maxServersPerAgent),
      // config.model.output's schemas are compiled when the agent is put: a 400 then, not at its first turn.
      (config) => void (config.model?.output && new StructuredOutput(config.model.output, untrustedSchemas, 'config.model.output')),
    ],
    deletionGuards: [cronJobsNamingAgent(cronRepository)],
  });
  const usageRepository = new UsageRepository(storage.table<UsageRow>(tables.usage));
  const budget = new DailyTokenBudget({ repository: usageRepository, defaultTokensPerDay: limits.tokensPerDay, accountTokensPerDay: (accountId) => accounts.tokensPerDay(accountId), now });
  const usage = new AccountUsage({ repository: usageRepository, budget, logger, now });
  // Its own sockets, ended when the service stops: an MCP server can then stop at once too.
  const mcpFetch = outbound.createOwnFetch('mcp');
  const mcpConnections = new McpConnections(settings.mcp, mcpFetch.fetch, logger, untrustedSchemas);
  return { rateLimiters, outbound, accounts, agents, usage, untrustedSchemas, mcpFetch, mcpConnections, cronRepository };
}

export type AccountsAndAgents = ReturnType<typeof buildAccountsAndAgents>;
