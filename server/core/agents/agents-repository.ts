import type { AgentConfig } from '../agent-config/agent-config-schema.js';
import type { ConfigCipher } from '../secrets/config-encryption.js';
import type { TableStore } from '../storage/table-store.js';
import type { Agent, StoredAgent } from './agent.js';
import { DecryptedConfigs } from './decrypted-configs.js';

/** Where a stored config belongs: bound into the ciphertext as associated data. */
function associatedData(accountId: string, agentId: string): string {
  return `agent-config:${accountId}:${agentId}`;
}

/** Agents, one partition per account; configs are encrypted here and nowhere else. */
export class AgentsRepository {
  /** Every turn reads its agent: the decryption is skipped while the stored ciphertext is unchanged. */
  private readonly decrypted: DecryptedConfigs;

  constructor(
    private readonly table: TableStore<StoredAgent>,
    private readonly cipher: ConfigCipher,
    decrypted?: DecryptedConfigs,
  ) {
    this.decrypted = decrypted ?? new DecryptedConfigs();
  }

  private decrypt(stored: StoredAgent): Agent {
    const { accountId, agentId, encryptedConfig } = stored;
    const config = this.decrypted.get(accountId, agentId, encryptedConfig, () => this.cipher.decrypt<AgentConfig>(encryptedConfig, associatedData(accountId, agentId)));
    return { accountId: stored.accountId, agentId: stored.agentId, config, createdAt: stored.createdAt, updatedAt: stored.updatedAt };
  }

  async get(accountId: string, agentId: string): Promise<{ agent: Agent; version: number } | undefined> {
    const row = await this.table.get(accountId, agentId);
    return row && { agent: this.decrypt(row.value), version: row.version };
  }

  async list(accountId: string): Promise<Agent[]> {
    const rows = await this.table.list(accountId);
    return rows.map((row) => this.decrypt(row.value)).sort((left, right) => left.agentId.localeCompare(right.agentId));
  }

  /**
   * Write an agent if it is still at `expectedVersion` (`null`: only if it does not exist).
   * Throws `ConditionFailedError` otherwise.
   */
  async write(agent: Agent, expectedVersion: number | null): Promise<void> {
    const stored: StoredAgent = {
      accountId: agent.accountId,
      agentId: agent.agentId,
      encryptedConfig: this.cipher.encrypt(agent.config, associatedData(agent.accountId, agent.agentId)),
      createdAt: agent.createdAt,
      updatedAt: agent.updatedAt,
    };
    await this.table.write(agent.accountId, [{ type: 'put', key: agent.agentId, value: stored, expectedVersion }]);
  }

  /** Delete if still at `expectedVersion`. */
  async delete(accountId: string, agentId: string, expectedVersion: number): Promise<void> {
    await this.table.write(accountId, [{ type: 'delete', key: agentId, expectedVersion }]);
    this.decrypted.forget(accountId, agentId);
  }
}
