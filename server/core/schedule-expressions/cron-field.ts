import { InvalidRequestError } from '../errors.js';

/** What one cron field accepts. */
export interface CronFieldSpec {
  /** The field's name as messages spell it: `minutes`, `day-of-week`... */
  readonly name: string;
  readonly min: number;
  readonly max: number;
  /** Upper-case names for values (`JAN` = 1, `SUN` = 1). */
  readonly names?: Readonly<Record<string, number>>;
  /** EventBridge allows `/` in every field except day-of-week. */
  readonly allowsStep: boolean;
}

export const monthNames: Readonly<Record<string, number>> = {
  JAN: 1, FEB: 2, MAR: 3, APR: 4, MAY: 5, JUN: 6, JUL: 7, AUG: 8, SEP: 9, OCT: 10, NOV: 11, DEC: 12,
};

/** EventBridge numbers days of the week 1-7 from Sunday. */
export const weekdayNames: Readonly<Record<string, number>> = {
  SUN: 1, MON: 2, TUE: 3, WED: 4, THU: 5, FRI: 6, SAT: 7,
};

/** A 400 naming `scheduleExpression`, the field, the field's text and what is wrong. */
export function fieldError(spec: Pick<CronFieldSpec, 'name'>, text: string, reason: string): InvalidRequestError {
  return new InvalidRequestError(`scheduleExpression: the ${spec.name} field "${text}" is invalid: ${reason}.`);
}

/** A single value: a number or one of the field's names, within the field's bounds. */
export function parseFieldValue(spec: CronFieldSpec, fieldText: string, token: string): number {
  const upper = token.toUpperCase();
  let value: number | undefined;
  if (/^\d+$/.test(token)) value = Number(token);
  else if (spec.names && upper in spec.names) value = spec.names[upper];
  if (value === undefined) {
    const expected = spec.names ? `a number ${spec.min}-${spec.max} or a name such as ${Object.keys(spec.names)[0]}` : `a number ${spec.min}-${spec.max}`;
    throw fieldError(spec, fieldText, `"${token}" is not ${expected}`);
  }
  if (value < spec.min || value > spec.max) {
    throw fieldError(spec, fieldText, `${value} is outside ${spec.min}-${spec.max}`);
  }
  return value;
}

/**
 * Parses a field made of `*`, values, `a-b` ranges and `/` steps joined by commas into the
 * sorted distinct values it matches. `a/s` starts at a and steps to the field's maximum;
 * `*` and `a-b` may carry a step too. A range must not run backwards.
 */
export function parseValueList(spec: CronFieldSpec, fieldText: string): number[] {
  const values = new Set<number>();
  for (const item of fieldText.split(',')) {
    if (item === '') throw fieldError(spec, fieldText, 'a list has an empty item');
    const [base = '', stepText, extra] = item.split('/');
    if (extra !== undefined) throw fieldError(spec, fieldText, `"${item}" has more than one "/"`);
    let step = 1;
    if (stepText !== undefined) {
      if (!spec.allowsStep) throw fieldError(spec, fieldText, '"/" is not allowed in this field');
      if (!/^\d+$/.test(stepText) || Number(stepText) < 1) {
        throw fieldError(spec, fieldText, `the step "${stepText}" must be a positive whole number`);
      }
      step = Number(stepText);
      if (step > spec.max - spec.min + 1) {
        throw fieldError(spec, fieldText, `the step ${step} is larger than the field's range ${spec.min}-${spec.max}`);
      }
    }
    let start: number;
    let end: number;
    if (base === '*') {
      start = spec.min;
      end = spec.max;
    } else if (base.includes('-')) {
      const [fromText = '', toText = '', more] = base.split('-');
      if (more !== undefined || fromText === '' || toText === '') {
        throw fieldError(spec, fieldText, `"${base}" is not a range like 1-5`);
      }
      start = parseFieldValue(spec, fieldText, fromText);
      end = parseFieldValue(spec, fieldText, toText);
      if (start > end) throw fieldError(spec, fieldText, `the range ${base} runs backwards`);
    } else {
      if (base === '') throw fieldError(spec, fieldText, `"${item}" has no value before "/"`);
      start = parseFieldValue(spec, fieldText, base);
      end = stepText === undefined ? start : spec.max;
    }
    for (let value = start; value <= end; value += step) values.add(value);
  }
  return [...values].sort((a, b) => a - b);
}
