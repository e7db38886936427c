import { InvalidRequestError } from '../errors.js';
import { fieldError, monthNames, parseFieldValue, parseValueList, weekdayNames, type CronFieldSpec } from './cron-field.js';
import type { CronSchedule, DayRule } from './schedule.js';

const minutesField: CronFieldSpec = { name: 'minutes', min: 0, max: 59, allowsStep: true };
const hoursField: CronFieldSpec = { name: 'hours', min: 0, max: 23, allowsStep: true };
const dayOfMonthField: CronFieldSpec = { name: 'day-of-month', min: 1, max: 31, allowsStep: true };
const monthField: CronFieldSpec = { name: 'month', min: 1, max: 12, names: monthNames, allowsStep: true };
const dayOfWeekField: CronFieldSpec = { name: 'day-of-week', min: 1, max: 7, names: weekdayNames, allowsStep: false };
const yearField: CronFieldSpec = { name: 'year', min: 1970, max: 2199, allowsStep: true };

/**
 * Parses the inside of `cron(...)`: six whitespace-separated fields, minutes hours
 * day-of-month month day-of-week year. Throws `InvalidRequestError` naming
 * `scheduleExpression`, the field and the reason.
 */
export function parseCronExpression(expression: string, inside: string): CronSchedule {
  const fields = inside.trim().split(/\s+/).filter((field) => field !== '');
  if (fields.length !== 6) {
    throw new InvalidRequestError(
      `scheduleExpression: cron() needs exactly 6 fields (minutes hours day-of-month month day-of-week year), got ${fields.length}.`,
    );
  }
  const [minutesText, hoursText, dayOfMonthText, monthText, dayOfWeekText, yearText] = fields as [string, string, string, string, string, string];
  const minutes = parsePlainField(minutesField, minutesText);
  const hours = parsePlainField(hoursField, hoursText);
  const months = parsePlainField(monthField, monthText);
  const years = parsePlainField(yearField, yearText);
  const dayOfMonthIsAny = dayOfMonthText === '?';
  const dayOfWeekIsAny = dayOfWeekText === '?';
  if (dayOfMonthIsAny && dayOfWeekIsAny) {
    throw new InvalidRequestError('scheduleExpression: day-of-month and day-of-week cannot both be "?"; exactly one of them must be "?".');
  }
  if (!dayOfMonthIsAny && !dayOfWeekIsAny) {
    throw new InvalidRequestError('scheduleExpression: day-of-month and day-of-week cannot both be specified; one of them must be "?".');
  }
  const days = dayOfWeekIsAny ? parseDayOfMonth(dayOfMonthText) : parseDayOfWeek(dayOfWeekText);
  return { kind: 'cron', expression, minutes, hours, months, years, days };
}

/** Where each special character is allowed, for messages. */
const specialCharacterHomes: Readonly<Record<string, string>> = {
  '?': 'day-of-month and day-of-week',
  L: 'day-of-month and day-of-week',
  W: 'day-of-month',
  '#': 'day-of-week',
};

/** Minutes, hours, month and year: no `?`, `L`, `W` or `#` (but `JUL` has an L). */
function parsePlainField(spec: CronFieldSpec, text: string): number[] {
  const special = /[?#]/.exec(text)?.[0] ?? /(?:^|[,\-/])\d*([LW])(?=$|[,\-/])/i.exec(text)?.[1]?.toUpperCase();
  if (special !== undefined) {
    throw fieldError(spec, text, `"${special}" is only allowed in ${specialCharacterHomes[special]}`);
  }
  return parseValueList(spec, text);
}

function parseDayOfMonth(text: string): DayRule {
  const upper = text.toUpperCase();
  if (upper === 'L') return { kind: 'last-day-of-month' };
  if (upper === 'LW') return { kind: 'last-weekday-of-month' };
  const nearest = /^(\d+)W$/.exec(upper);
  if (nearest?.[1] !== undefined) {
    return { kind: 'nearest-weekday', day: parseFieldValue(dayOfMonthField, text, nearest[1]) };
  }
  if (upper.includes('#')) throw fieldError(dayOfMonthField, text, '"#" is only allowed in day-of-week');
  if (/[LW]/.test(upper)) {
    throw fieldError(dayOfMonthField, text, '"L", "LW" and "nW" must stand alone (no lists, ranges or offsets such as L-3)');
  }
  return { kind: 'days-of-month', days: parseValueList(dayOfMonthField, text) };
}

function parseDayOfWeek(text: string): DayRule {
  const upper = text.toUpperCase();
  if (upper === 'L') return { kind: 'days-of-week', weekdays: [7] };
  if (/^W$|\dW/.test(upper)) {
    throw fieldError(dayOfWeekField, text, '"W" is only allowed in day-of-month');
  }
  const lastOf = /^([A-Z]{3}|\d+)L$/.exec(upper);
  if (lastOf?.[1] !== undefined) {
    return { kind: 'last-weekday-n-of-month', weekday: parseFieldValue(dayOfWeekField, text, lastOf[1]) };
  }
  const nth = /^([A-Z]{3}|\d+)#(\d+)$/.exec(upper);
  if (nth?.[1] !== undefined && nth[2] !== undefined) {
    const weekday = parseFieldValue(dayOfWeekField, text, nth[1]);
    const occurrence = Number(nth[2]);
    if (occurrence < 1 || occurrence > 5) throw fieldError(dayOfWeekField, text, `the occurrence after "#" must be 1-5, got ${occurrence}`);
    return { kind: 'nth-weekday-of-month', weekday, nth: occurrence };
  }
  if (upper.includes('#')) {
    throw fieldError(dayOfWeekField, text, '"#" must be the whole field, one expression like 3#2 (lists such as 3#1,6#3 are not allowed)');
  }
  if (upper.includes('L')) throw fieldError(dayOfWeekField, text, '"L" and "nL" must stand alone (no lists or ranges)');
  return { kind: 'days-of-week', weekdays: parseValueList(dayOfWeekField, text) };
}
