type Environment = Record<string, string | undefined>;

/** The longest key or value the OpenTelemetry SDK's environment detector accepts. */
const maximumLength = 255;

/**
 * `OTEL_RESOURCE_ATTRIBUTES` (`key1=value1,key2=value2`, `,` and `=` percent-encoded), read as
 * the OpenTelemetry SDK's environment detector reads it, from the given environment. As the
 * specification says, a value that cannot be read is discarded whole: `{}`.
 */
export function resourceAttributesFromEnvironment(env: Environment): Record<string, string> {
  const raw = env.OTEL_RESOURCE_ATTRIBUTES?.trim();
  if (!raw) return {};
  const attributes: Record<string, string> = {};
  for (const entry of raw.split(',').filter((part) => part.trim() !== '')) {
    const parts = entry.split('=');
    if (parts.length !== 2) return {};
    let key: string;
    let value: string;
    try {
      key = decodeURIComponent((parts[0] as string).trim());
      value = decodeURIComponent((parts[1] as string).trim());
    } catch {
      return {};
    }
    if (key === '' || key.length > maximumLength || value.length > maximumLength) return {};
    attributes[key] = value;
  }
  return attributes;
}
