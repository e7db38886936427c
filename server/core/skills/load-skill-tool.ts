import { type ToolSet, tool } from 'ai';
import { z } from 'zod';
import { validateAgentConfigSections } from '../agent-config/agent-config-sections.js';
import type { Logger } from '../logger.js';
import { accountBucketFolder } from '../sandbox/account-bucket.js';
import { SandboxToolError } from '../sandbox/sandbox-tool-error.js';
import { loadTextFileBeneath } from '../sandbox/text-files.js';
import { withWorkspaceRoot } from '../sandbox/workspace-root.js';
import type { ToolSource } from '../tools/build-tools.js';
import type { SkillConfig } from './skills-config-schema.js';

export interface LoadSkillOptions {
  skills: Record<string, SkillConfig>;
  /** The account's folder in the bucket, which `file` paths are relative to; unset, file skills fail. */
  accountFolder?: string;
  logger?: Logger;
}

/** A skill's instructions: inline, or read from its file through the same path checks as the file tools. */
async function instructionsOf(skill: SkillConfig, accountFolder: string | undefined): Promise<string> {
  if ('instructions' in skill) return skill.instructions;
  if (!accountFolder) throw new SandboxToolError('not-found', 'This service has no filesystem bucket, so skill files cannot be read.');
  // Read race-free beneath the account folder: bash in a workspace may be swapping links meanwhile.
  const loaded = await withWorkspaceRoot(accountFolder, (root) => loadTextFileBeneath(root, skill.file)).catch((error: unknown) => {
    if (error instanceof SandboxToolError && error.kind === 'not-found' && error.message.startsWith('The workspace folder')) {
      throw new SandboxToolError('not-found', `The skill file "${skill.file}" does not exist.`);
    }
    throw error;
  });
  return loaded.text;
}

/** `load_skill`, only from `config.skills`: returns a named skill's instructions; its description lists the skills. */
export function buildLoadSkillTool(options: LoadSkillOptions): ToolSet {
  const names = Object.keys(options.skills);
  if (names.length === 0) return {};
  const listing = names.map((name) => `- ${name}: ${options.skills[name]?.description ?? ''}`).join('\n');
  return {
    load_skill: tool({
      description: `Load the instructions of a skill before doing work it covers. Available skills:\n${listing}`,
      inputSchema: z.object({ name: z.string().min(1).describe(`The skill to load, one of: ${names.join(', ')}`) }),
      execute: async ({ name }): Promise<{ name: string; description: string; instructions: string } | { error: string }> => {
        const skill = Object.hasOwn(options.skills, name) ? options.skills[name] : undefined;
        if (!skill) return { error: `There is no skill "${name}" (available: ${names.join(', ')}).` };
        try {
          return { name, description: skill.description, instructions: await instructionsOf(skill, options.accountFolder) };
        } catch (error) {
          if (error instanceof SandboxToolError) return { error: `The skill "${name}" could not be loaded: ${error.message}` };
          const code = (error as NodeJS.ErrnoException | undefined)?.code;
          options.logger?.error({ event: 'load-skill', skill: name, status: code ?? 'internal' }, 'skill file could not be read');
          return { error: `The skill "${name}" could not be loaded${code ? ` (${code})` : ''}.` };
        }
      },
    }),
  };
}

/** The tool source for `config.skills`; file skills are read from the account's folder in the bucket. */
export function skillsToolSource(options: { bucketFolder?: string }): ToolSource {
  return {
    name: 'config.skills',
    build: (config, context) => {
      // Validated again when tools are built (shape, and no external tool config here), as config.tools is.
      const { skills } = validateAgentConfigSections({ skills: config.skills });
      if (!skills) return {};
      return buildLoadSkillTool({
        skills,
        ...(options.bucketFolder ? { accountFolder: accountBucketFolder(options.bucketFolder, context.accountId) } : {}),
        logger: context.logger,
      });
    },
  };
}
