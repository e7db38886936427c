import type { AgentConfig } from '../agent-config/agent-config-schema.js';
import type { EncryptedValue } from '../secrets/config-encryption.js';

/** An agent as stored: the whole config is encrypted at rest. */
export interface StoredAgent {
  accountId: string;
  agentId: string;
  encryptedConfig: EncryptedValue;
  createdAt: string;
  updatedAt: string;
}

/** An agent with its config in plaintext: only ever in memory. */
export interface Agent {
  accountId: string;
  agentId: string;
  config: AgentConfig;
  createdAt: string;
  updatedAt: string;
}

/** What responses show: secrets redacted. */
export interface AgentView {
  agentId: string;
  config: AgentConfig;
  createdAt: string;
  updatedAt: string;
}
