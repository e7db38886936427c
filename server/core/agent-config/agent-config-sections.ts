import { type SandboxLimits, type WorkspaceConfig, validateSandboxConfig, validateWorkspaceConfig } from '../sandbox/sandbox-config-schema.js';
import { type SkillConfig, validateSkillsConfig } from '../skills/skills-config-schema.js';
import { type SubagentConfig, validateSubagentConfig } from '../subagents/subagent-config-schema.js';
import { assertNoExternalToolConfig } from './external-tool-placement.js';

/**
 * The config keys whose tools come from their own key, never from `config.tools`, validated
 * and with their defaults filled in.
 */
export interface AgentConfigSections {
  sandbox?: SandboxLimits;
  workspace?: Record<string, WorkspaceConfig>;
  subagent?: SubagentConfig;
  skills?: Record<string, SkillConfig>;
}

/**
 * Validate `config.sandbox`, `config.workspace`, `config.subagent` and `config.skills`: run
 * when a config is written and again when tools are built, so a config stored before a rule
 * tightened is still checked. Keys that are absent stay absent; the first problem is a 400
 * naming its path. External tool configuration is refused first, so the message says why.
 */
export function validateAgentConfigSections(config: { sandbox?: unknown; workspace?: unknown; subagent?: unknown; skills?: unknown }): AgentConfigSections {
  const sections: AgentConfigSections = {};
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
