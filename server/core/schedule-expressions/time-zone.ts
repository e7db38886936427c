import { InvalidRequestError } from '../errors.js';
import type { WallClockTime } from './schedule.js';

const minuteMs = 60_000;
const dayMs = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();
let supportedZones: ReadonlySet<string> | undefined;

/**
 * Throws `InvalidRequestError` naming `timezone` unless `timezone` is an IANA zone this
 * runtime knows. Aliases Intl resolves to a canonical zone (`Asia/Ho_Chi_Minh`,
 * `US/Eastern`) are accepted; `Intl.supportedValuesOf` lists only canonical names, and
 * not `UTC` at all, so the check is on the resolved name.
 */
export function assertTimeZone(timezone: string): void {
  if (typeof timezone !== 'string' || timezone.trim() === '') {
    throw new InvalidRequestError('timezone: must be a non-empty IANA time zone name such as "UTC" or "Europe/Berlin".');
  }
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    throw new InvalidRequestError(`timezone: "${timezone}" is not a known IANA time zone (for example "UTC", "America/New_York").`);
  }
  supportedZones ??= new Set(Intl.supportedValuesOf('timeZone'));
  if (resolved !== 'UTC' && !supportedZones.has(resolved)) {
    throw new InvalidRequestError(`timezone: "${timezone}" is not a known IANA time zone (for example "UTC", "America/New_York").`);
  }
}

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/** The wall clock in `timezone` at `instantMs` (milliseconds dropped). */
export function wallClockAt(instantMs: number, timezone: string): WallClockTime {
  if (timezone === 'UTC') {
    const date = new Date(instantMs);
    return {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      hour: date.getUTCHours(),
      minute: date.getUTCMinutes(),
      second: date.getUTCSeconds(),
    };
  }
  // Formatting through Intl costs microseconds and many jobs ask for the same instants (10,000
  // jobs due at one minute): remember readings per zone, exactly keyed by the instant.
  let readings = wallClockReadings.get(timezone);
  if (!readings) {
    readings = new Map();
    wallClockReadings.set(timezone, readings);
  }
  const known = readings.get(instantMs);
  if (known) return { ...known };
  const reading = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of formatterFor(timezone).formatToParts(instantMs)) {
    if (part.type in reading) reading[part.type as keyof typeof reading] = Number(part.value);
  }
  if (readings.size >= maxRememberedReadings) readings.clear();
  readings.set(instantMs, reading);
  return { ...reading };
}

const wallClockReadings = new Map<string, Map<number, WallClockTime>>();
const maxRememberedReadings = 20_000;

/** A wall-clock reading as if it were UTC: a plain number to compare and offset with. */
export function wallClockAsUtcMs(time: Omit<WallClockTime, 'second'> & { second?: number }): number {
  return Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second ?? 0);
}

/** The zone's offset from UTC (wall clock minus instant) at `instantMs`. */
function offsetMsAt(instantMs: number, timezone: string): number {
  const wholeSecond = Math.floor(instantMs / 1000) * 1000;
  return wallClockAsUtcMs(wallClockAt(wholeSecond, timezone)) - wholeSecond;
}

/**
 * The instant at which the wall clock in `timezone` shows the given minute, following
 * EventBridge Scheduler's daylight-saving rules: a minute the clocks skip (spring forward)
 * has no instant and gives `null`; a minute shown twice (fall back) gives its first
 * occurrence only.
 */
export function instantOfWallClockMinute(
  time: Omit<WallClockTime, 'second'>,
  timezone: string,
): number | null {
  const asUtc = wallClockAsUtcMs(time);
  if (timezone === 'UTC') return asUtc;
  // Any offset in force at this wall-clock minute is in force within a day of it.
  const offsets = new Set([offsetMsAt(asUtc - dayMs, timezone), offsetMsAt(asUtc + dayMs, timezone)]);
  let earliest: number | null = null;
  for (const offset of offsets) {
    const candidate = asUtc - offset;
    if (offsetMsAt(candidate, timezone) !== offset) continue;
    if (earliest === null || candidate < earliest) earliest = candidate;
  }
  return earliest;
}

/** `instantMs` rounded down to a whole minute (unchanged when it already is one). */
export function floorToMinute(instantMs: number): number {
  return Math.floor(instantMs / minuteMs) * minuteMs;
}
