import type { Format } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { LinearPatterns } from './linear-patterns.js';

/**
 * Longest string a format that cannot run on RE2 (a function, or a regular expression with a
 * lookahead) is checked on; a longer string does not match the format. These are ajv-formats'
 * own fixed checks, not the account's, and at this length none of them is slow.
 */
export const maxFormatCheckedLength = 2048;

type FormatCheck = (text: string) => boolean;

function stringCheckOf(format: unknown): FormatCheck | RegExp | undefined {
  if (format instanceof RegExp) return format;
  if (typeof format === 'function') return format as FormatCheck;
  if (typeof format === 'object' && format !== null && 'validate' in format) {
    const validate = (format as { validate: unknown }).validate;
    if (validate instanceof RegExp || typeof validate === 'function') return validate as RegExp | FormatCheck;
  }
  return undefined;
}

/**
 * ajv-formats' full formats, each made safe for untrusted data: a regular expression RE2
 * accepts runs on the linear engine under the validation's budget; anything else runs on
 * strings of at most `maxFormatCheckedLength` characters, its cost taken from the budget.
 */
export function boundedFormats(patterns: LinearPatterns): Record<string, Format> {
  const formats: Record<string, Format> = {};
  for (const [name, format] of Object.entries(fullFormats)) {
    // Number formats (int32, float...) compare numbers and `true` ones (password, binary) check nothing: kept as they are.
    const isNumberFormat = typeof format === 'object' && (format as { type?: string }).type === 'number';
    const check = isNumberFormat ? undefined : stringCheckOf(format);
    if (!check) {
      formats[name] = format as Format;
      continue;
    }
    if (check instanceof RegExp) {
      try {
        const linear = patterns.compile(check.source, check.flags);
        formats[name] = { type: 'string', validate: (text: string) => linear.test(text) };
        continue;
      } catch {
        // A lookahead RE2 does not support: checked below with the length bound.
      }
    }
    const bounded: FormatCheck = check instanceof RegExp ? (text) => check.test(text) : check;
    formats[name] = {
      type: 'string',
      validate: (text: string) => {
        if (text.length > maxFormatCheckedLength) return false;
        patterns.spend(text.length * 64);
        return bounded(text);
      },
    };
  }
  return formats;
}
