import { UsageError } from '../cli-error.js';

/** What `harness tools set` was asked to change; an absent field is left as it is. */
export interface ToolChanges {
  enabled?: boolean;
  apiKey?: string;
  async?: boolean;
  execution?: string;
  needsApproval?: boolean;
  maxResults?: number;
  /** `--option key=value` pairs: any other field of the tool's entry. */
  options?: Record<string, unknown>;
}

/** Fields with their own flags; `--option` must not set them behind the flag's back. */
const fieldsWithFlags: Record<string, string> = {
  enabled: '--enable/--disable',
  apiKey: '--api-key-stdin',
  async: '--async/--no-async',
  execution: '--execution',
  needsApproval: '--needs-approval/--no-needs-approval',
  maxResults: '--max-results',
};

/**
 * Parses one `--option key=value`. The value is JSON when it parses as JSON (`5`, `true`,
 * `null` to remove the field, `["a"]`), otherwise the text as it is.
 */
export function parseOptionAssignment(assignment: string): [string, unknown] {
  const separator = assignment.indexOf('=');
  const key = separator === -1 ? '' : assignment.slice(0, separator).trim();
  if (!key) throw new UsageError(`--option expects key=value, got "${assignment}"`);
  if (Object.hasOwn(fieldsWithFlags, key)) {
    throw new UsageError(`set ${key} with ${fieldsWithFlags[key]}, not --option`);
  }
  if (key === '__proto__' || key === 'constructor' || key === 'prototype') {
    throw new UsageError(`--option cannot set "${key}"`);
  }
  const text = assignment.slice(separator + 1);
  try {
    return [key, JSON.parse(text)];
  } catch {
    return [key, text];
  }
}

/** Collects repeated `--option` flags into one object (commander's option reducer). */
export function collectOption(assignment: string, previous: Record<string, unknown> = {}): Record<string, unknown> {
  const [key, value] = parseOptionAssignment(assignment);
  return { ...previous, [key]: value };
}

/** The tool's entry fields that change, in the order a reader expects. */
export function changedFields(changes: ToolChanges): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const key of ['enabled', 'apiKey', 'async', 'execution', 'needsApproval', 'maxResults'] as const) {
    if (changes[key] !== undefined) fields[key] = changes[key];
  }
  return { ...fields, ...changes.options };
}

/**
 * The JSON merge patch (RFC 7396) for `PATCH /accounts/me/agents/{agentId}` that changes
 * only the given fields of one tool: other tools and other fields stay as stored.
 */
export function buildToolPatch(tool: string, changes: ToolChanges): { config: { tools: Record<string, Record<string, unknown>> } } {
  const fields = changedFields(changes);
  if (Object.keys(fields).length === 0) {
    throw new UsageError(
      'nothing to change: pass --enable, --disable, --api-key-stdin, --async, --execution, --needs-approval, --max-results or --option key=value',
    );
  }
  return { config: { tools: { [tool]: fields } } };
}
