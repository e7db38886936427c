import { assertNoExternalToolConfig } from './external-tool-placement.js';
import {
  type SandboxLimits,
  type SkillConfig,
  type SubagentConfig,
  type WorkspaceConfig,
  validateSandboxConfig,
  validateSkillsConfig,
  validateSubagentConfig,
  validateWorkspaceConfig,
} from '../sandbox/sandbox-config-schema.js';

/** The agent config keys issue 8 owns, validated and with their defaults filled in. */
export interface AgentSandboxSections {
  sandbox?: SandboxLimits;
  workspace?: Record<string, WorkspaceConfig>;
  subagent?: SubagentConfig;
  skills?: Record<string, SkillConfig>;
}

/**
 * Validate `config.sandbox`, `config.workspace`, `config.subagent` and `config.skills`
 * (contract §4): run when a config is written and again when tools are built. Keys that
 * are absent stay absent; the first problem is a 400 naming its path.
 */
export function validateSandboxSections(config: { sandbox?: unknown; workspace?: unknown; subagent?: unknown; skills?: unknown }): AgentSandboxSections {
  const sections: AgentSandboxSections = {};
  if (config.sandbox !== undefined) sections.sandbox = validateSandboxConfig(config.sandbox);
  if (config.workspace !== undefined) {
    assertNoExternalToolConfig('workspace', config.workspace);
    sections.workspace = validateWorkspaceConfig(config.workspace);
  }
  if (config.subagent !== undefined) {
    assertNoExternalToolConfig('subagent', config.subagent);
    sections.subagent = validateSubagentConfig(config.subagent);
  }
  if (config.skills !== undefined) {
    assertNoExternalToolConfig('skills', config.skills);
    sections.skills = validateSkillsConfig(config.skills);
  }
  return sections;
}
