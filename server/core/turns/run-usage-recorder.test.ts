import { describe, expect, it } from 'vitest';
import type { TurnRunUsage } from '../usage/account-usage.js';
import { RunUsageRecorder } from './run-usage-recorder.js';

const calls = (...totals: number[]) => totals.map((totalTokens) => ({ inputTokens: totalTokens - 1, outputTokens: 1, totalTokens }));

function recording() {
  const recorded: TurnRunUsage[] = [];
  return { recorded, usage: { record: async (run: TurnRunUsage) => void recorded.push(run) } };
}

describe('RunUsageRecorder', () => {
  it("counts each pass's calls once, the turn with the first, and nothing when nothing is new", async () => {
    const { recorded, usage } = recording();
    const recorder = new RunUsageRecorder(usage, { accountId: 'acc_1', agentId: 'helper', startsTurn: true });
    recorder.add(calls(10, 5));
    await recorder.flush();
    await recorder.flush();
    recorder.add(calls(7));
    await recorder.flush();
    expect(recorded).toEqual([
      { accountId: 'acc_1', agentId: 'helper', usage: { inputTokens: 13, outputTokens: 2, totalTokens: 15 }, startsTurn: true },
      { accountId: 'acc_1', agentId: 'helper', usage: { inputTokens: 6, outputTokens: 1, totalTokens: 7 }, startsTurn: false },
    ]);
  });

  it('counts a turn that used no tokens, and a continuation only when it used some', async () => {
    const first = recording();
    await new RunUsageRecorder(first.usage, { accountId: 'acc_1', agentId: 'helper', startsTurn: true }).flush();
    expect(first.recorded.map((run) => run.startsTurn)).toEqual([true]);
    const continuation = recording();
    await new RunUsageRecorder(continuation.usage, { accountId: 'acc_1', agentId: 'helper', startsTurn: false }).flush();
    expect(continuation.recorded).toEqual([]);
  });
});
