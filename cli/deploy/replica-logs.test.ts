import { describe, expect, it } from 'vitest';
import { interleaveReplicaLogs } from './replica-logs.js';

describe('interleaveReplicaLogs', () => {
  it('orders JSON lines by time, prefixes each with its replica, and keeps lines without a time after the line before them', () => {
    const lines = interleaveReplicaLogs([
      { index: 1, text: '--- starting replica 1 ---\n{"level":30,"time":1700000000100,"msg":"a"}\n{"level":30,"time":1700000000300,"msg":"c"}\nstack line\n' },
      { index: 2, text: '--- starting replica 2 ---\n{"level":30,"time":1700000000200,"msg":"b"}\n' },
    ]);
    expect(lines).toEqual([
      '[replica 1] --- starting replica 1 ---',
      '[replica 2] --- starting replica 2 ---',
      '[replica 1] {"level":30,"time":1700000000100,"msg":"a"}',
      '[replica 2] {"level":30,"time":1700000000200,"msg":"b"}',
      '[replica 1] {"level":30,"time":1700000000300,"msg":"c"}',
      '[replica 1] stack line',
    ]);
  });

  it('skips empty logs', () => {
    expect(interleaveReplicaLogs([{ index: 1, text: '' }, { index: 2, text: 'x\n' }])).toEqual(['[replica 2] x']);
  });
});
