import { type AgentConfig, validateAgentConfig } from '../agent-config/agent-config-schema.js';
import { applyMergePatch } from '../agent-config/json-merge-patch.js';
import { ConflictError, InvalidRequestError, NotFoundError, VersionConflictError } from '../errors.js';
import { redactSecrets, restoreRedactedSecrets } from '../secrets/redaction.js';
import { ConditionFailedError } from '../storage/table-store.js';
import type { Agent, AgentView } from './agent.js';
import { agentIdPattern } from './agent-id.js';
import type { AgentsRepository } from './agents-repository.js';

/** A check of a validated config against the service's settings (the outbound policy); throws a 400. */
export type AgentConfigCheck = (config: AgentConfig) => void;

/** Something that may refuse an agent's deletion (cron jobs that still name it). */
export type AgentDeletionGuard = (accountId: string, agentId: string) => Promise<string | undefined>;

export function viewAgent(agent: Agent): AgentView {
  return { agentId: agent.agentId, config: redactSecrets(agent.config), createdAt: agent.createdAt, updatedAt: agent.updatedAt };
}

/** Agent configs: validated, secrets kept across redacted round trips, encrypted at rest. */
export interface AgentsOptions {
  now?: () => Date;
  /** Run on every config written (PUT and PATCH), after the schema: the service's settings (outbound policy, MCP bounds, output schemas). */
  configChecks?: AgentConfigCheck[];
  /** Asked before an agent is deleted (cron jobs that still name it). */
  deletionGuards?: AgentDeletionGuard[];
}

export class Agents {
  private readonly deletionGuards: AgentDeletionGuard[];
  private readonly configChecks: AgentConfigCheck[];
  private readonly now: () => Date;

  constructor(
    private readonly repository: AgentsRepository,
    options: AgentsOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.configChecks = options.configChecks ?? [];
    this.deletionGuards = options.deletionGuards ?? [];
  }

  private validate(config: unknown): AgentConfig {
    const validated = validateAgentConfig(config);
    for (const check of this.configChecks) check(validated);
    return validated;
  }

  private assertAgentId(agentId: string): void {
    if (!agentIdPattern.test(agentId)) {
      throw new InvalidRequestError('agentId must be 1-64 characters of A-Z, a-z, 0-9, "_" and "-", starting with a letter or digit');
    }
  }

  /** The agent with its plaintext config, for the core's own use (turns, tools). */
  async load(accountId: string, agentId: string): Promise<Agent> {
    const found = agentIdPattern.test(agentId) ? await this.repository.get(accountId, agentId) : undefined;
    if (!found) throw new NotFoundError(`No agent "${agentId}" in this account.`);
    return found.agent;
  }

  async get(accountId: string, agentId: string): Promise<AgentView> {
    return viewAgent(await this.load(accountId, agentId));
  }

  async list(accountId: string): Promise<AgentView[]> {
    return (await this.repository.list(accountId)).map(viewAgent);
  }

  /** PUT: create or replace. `created` tells 201 from 200. */
  async put(accountId: string, agentId: string, config: unknown): Promise<{ agent: AgentView; created: boolean }> {
    this.assertAgentId(agentId);
    const existing = await this.repository.get(accountId, agentId);
    const restored = restoreRedactedSecrets(config, existing?.agent.config);
    const validated = this.validate(restored);
    const timestamp = this.now().toISOString();
    const agent: Agent = {
      accountId,
      agentId,
      config: validated,
      createdAt: existing?.agent.createdAt ?? timestamp,
      updatedAt: timestamp,
    };
    await this.writeOrConflict(agent, existing ? existing.version : null, agentId);
    return { agent: viewAgent(agent), created: !existing };
  }

  /** PATCH: an RFC 7396 merge patch of `{config}`. */
  async patch(accountId: string, agentId: string, configPatch: unknown): Promise<AgentView> {
    this.assertAgentId(agentId);
    const existing = await this.repository.get(accountId, agentId);
    if (!existing) throw new NotFoundError(`No agent "${agentId}" in this account.`);
    const merged = applyMergePatch(existing.agent.config, configPatch);
    const restored = restoreRedactedSecrets(merged, existing.agent.config);
    const validated: AgentConfig = this.validate(restored);
    const agent: Agent = { ...existing.agent, config: validated, updatedAt: this.now().toISOString() };
    await this.writeOrConflict(agent, existing.version, agentId);
    return viewAgent(agent);
  }

  async delete(accountId: string, agentId: string): Promise<void> {
    const existing = agentIdPattern.test(agentId) ? await this.repository.get(accountId, agentId) : undefined;
    if (!existing) throw new NotFoundError(`No agent "${agentId}" in this account.`);
    for (const guard of this.deletionGuards) {
      const refusal = await guard(accountId, agentId);
      if (refusal) throw new ConflictError(refusal);
    }
    try {
      await this.repository.delete(accountId, agentId, existing.version);
    } catch (error) {
      if (error instanceof ConditionFailedError) throw new VersionConflictError(`Agent "${agentId}"`);
      throw error;
    }
  }

  private async writeOrConflict(agent: Agent, expectedVersion: number | null, agentId: string): Promise<void> {
    try {
      await this.repository.write(agent, expectedVersion);
    } catch (error) {
      if (error instanceof ConditionFailedError) throw new VersionConflictError(`Agent "${agentId}"`);
      throw error;
    }
  }
}
