/**
 * Instants shown on a wall clock: `2030-01-07 12:30 CET`. The CLI shows each cron time twice,
 * in the job's zone (what the schedule means) and in the user's (when it happens for them).
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' });
    formatters.set(timeZone, format);
  }
  return format;
}

/** `YYYY-MM-DD HH:MM ZONE` in `timeZone`; `-` for no time. */
export function formatInZone(instant: string | Date | null | undefined, timeZone: string): string {
  if (instant === null || instant === undefined) return '-';
  const date = typeof instant === 'string' ? new Date(instant) : instant;
  if (Number.isNaN(date.getTime())) return String(instant);
  const parts = Object.fromEntries(formatter(timeZone).formatToParts(date).map((part) => [part.type, part.value]));
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${parts.timeZoneName}`;
}

/** The user's zone: `TZ` when set, else the system's. */
export function localTimeZone(env: Record<string, string | undefined>): string {
  const fromEnvironment = env.TZ?.replace(/^:/, '');
  if (fromEnvironment) {
    try {
      formatter(fromEnvironment);
      return fromEnvironment;
    } catch {
      // Not a zone Intl knows: fall back to the system's.
    }
  }
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
