import type { JSONValue } from 'ai';
import { isRecord } from '../is-record.js';
import type { ModelProviderOptions } from './providers/provider-definition.js';

function deepMerge(base: JSONValue | undefined, over: unknown): JSONValue {
  if (!isRecord(base) || !isRecord(over)) return over as JSONValue;
  const merged: Record<string, JSONValue> = { ...(base as Record<string, JSONValue>) };
  for (const [key, value] of Object.entries(over)) {
    // A key parsed from JSON may be `__proto__`: assigning it would change the object's prototype.
    if (key === '__proto__') continue;
    merged[key] = deepMerge(Object.hasOwn(base, key) ? (base[key] as JSONValue) : undefined, value);
  }
  return merged;
}

/** Our provider options with the account's `providerOptions` deep-merged over them: theirs win, key by key. */
export function mergeProviderOptions(ours: ModelProviderOptions, theirs: Record<string, Record<string, unknown>> | undefined): ModelProviderOptions {
  if (!theirs) return ours;
  return deepMerge(ours, theirs) as ModelProviderOptions;
}
