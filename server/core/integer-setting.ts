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
