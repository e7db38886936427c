import type { TextWriter } from './cli-context.js';

/**
 * The CLI's output layer: plain text that reads well in a terminal and still works when
 * stdout is a pipe or a file (no colours, no cursor control), and `--json` documents.
 */

/** Columns padded to their widest cell, two spaces apart, no trailing spaces. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, index) =>
    Math.max(header.length, ...rows.map((row) => (row[index] ?? '').length)),
  );
  const formatRow = (cells: readonly string[]): string =>
    widths
      .map((width, index) => (cells[index] ?? '').padEnd(width))
      .join('  ')
      .trimEnd();
  return [formatRow(headers), ...rows.map(formatRow)].join('\n') + '\n';
}

/** `label: value` lines with the values aligned, for a single record. */
export function formatFields(fields: readonly (readonly [string, string])[]): string {
  const width = Math.max(0, ...fields.map(([label]) => label.length + 1));
  return fields.map(([label, value]) => `${`${label}:`.padEnd(width)} ${value}`).join('\n') + '\n';
}

/** One JSON document on one line, so `--json` output can be piped into `jq` line by line. */
export function printJson(writer: TextWriter, value: unknown): void {
  writer.write(`${JSON.stringify(value)}\n`);
}

export function printText(writer: TextWriter, text: string): void {
  writer.write(text.endsWith('\n') ? text : `${text}\n`);
}
