/**
 * An operator's whole-number setting from the environment: `fallback` when unset or blank; a
 * value that is not an integer from `minimum` to `maximum` stops the start with a message
 * naming the variable.
 */
export function integerSetting(environment: NodeJS.ProcessEnv, name: string, fallback: number, minimum: number, maximum: number): number {
  const raw = environment[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < minimum || value > maximum) {
    throw new Error(`${name} must be an integer from ${minimum} to ${maximum} (got ${JSON.stringify(raw)}).`);
  }
  return value;
}

/** One whole-number setting: its variable, its default, and the range a value must be in. */
export type IntegerSettingSpec = readonly [variable: string, fallback: number, minimum: number, maximum: number];

/**
 * A group of whole-number settings (`HARNESS_WEBHOOK_*`, `HARNESS_MCP_*`...) written once as a
 * table: each field's variable, default and range. `settings` reads them all from
 * `environment`; `defaults` is what an empty environment gives.
 */
export function integerSettingGroup<Field extends string>(table: Record<Field, IntegerSettingSpec>): {
  defaults: Record<Field, number>;
  settings(environment: NodeJS.ProcessEnv): Record<Field, number>;
} {
  const entries = Object.entries(table) as [Field, IntegerSettingSpec][];
  const read = (environment: NodeJS.ProcessEnv) =>
    Object.fromEntries(entries.map(([field, [variable, fallback, minimum, maximum]]) => [field, integerSetting(environment, variable, fallback, minimum, maximum)])) as Record<Field, number>;
  return { defaults: read({}), settings: read };
}
