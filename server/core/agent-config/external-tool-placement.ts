import { InvalidRequestError } from '../errors.js';
import { isRecord } from '../is-record.js';
import { commonToolOptionNames, toolNames } from '../config-parsing/tool-catalog.js';

/** Keys that only make sense in an external tool's config. */
const toolOptionKeys = new Set<string>(['tools', ...toolNames, ...commonToolOptionNames]);

function refuse(path: string): never {
  throw new InvalidRequestError(`${path} is not allowed: external tool configuration belongs only under config.tools, never under config.workspace, config.skills or config.subagent`);
}

function checkEntry(entry: unknown, path: string): void {
  if (!isRecord(entry)) return;
  for (const key of Object.keys(entry)) if (toolOptionKeys.has(key)) refuse(`${path}.${key}`);
}

/**
 * External tool configuration lives only under `config.tools`, never under `workspace`,
 * `skills` or `subagent`: one place decides which outside services an agent may call.
 * Checked before the shapes themselves, so the message says why rather than only "not
 * allowed here". A workspace or skill may not be named after an external tool either, so a
 * tool's config cannot pass for one.
 */
export function assertNoExternalToolConfig(section: 'workspace' | 'skills' | 'subagent', value: unknown): void {
  const path = `config.${section}`;
  if (!isRecord(value)) return;
  if (section === 'subagent') {
    checkEntry(value, path);
    if (isRecord(value.agents)) for (const [agentId, entry] of Object.entries(value.agents)) checkEntry(entry, `${path}.agents.${agentId}`);
    return;
  }
  for (const [name, entry] of Object.entries(value)) {
    if (toolOptionKeys.has(name)) refuse(`${path}.${name}`);
    checkEntry(entry, `${path}.${name}`);
    if (section === 'workspace' && isRecord(entry)) checkEntry(entry.sandbox, `${path}.${name}.sandbox`);
  }
}
