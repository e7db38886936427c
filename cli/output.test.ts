import { describe, expect, it } from 'vitest';
import { formatFields, formatTable, printJson } from './output.js';

describe('formatTable', () => {
  it('pads each column to its widest cell, two spaces apart, with no trailing spaces', () => {
    const table = formatTable(
      ['TOOL', 'ENABLED', 'KEY'],
      [
        ['alphaSearch', 'yes', 'set'],
        ['test_async', 'no', '-'],
      ],
    );
    expect(table).toBe(['TOOL         ENABLED  KEY', 'alphaSearch  yes      set', 'test_async   no       -', ''].join('\n'));
  });

  it('prints only the header for no rows', () => {
    expect(formatTable(['A', 'B'], [])).toBe('A  B\n');
  });

  it('treats missing cells as empty', () => {
    expect(formatTable(['A', 'B'], [['x']])).toBe('A  B\nx\n');
  });
});

describe('formatFields', () => {
  it('aligns values after the labels', () => {
    expect(formatFields([['account', 'acc_1'], ['created', '2025']])).toBe('account: acc_1\ncreated: 2025\n');
    expect(formatFields([['id', '1'], ['username', 'alice']])).toBe('id:       1\nusername: alice\n');
  });
});

describe('printJson', () => {
  it('writes one JSON document on one line', () => {
    let written = '';
    printJson({ write: (text: string) => (written += text) }, { a: 1, b: [1, 2] });
    expect(written).toBe('{"a":1,"b":[1,2]}\n');
  });
});
