/**
 * A compaction's cost and how often it runs: one conversation driven to 10,000 stored messages
 * (5,000 SSE turns of about 60 words each way) on an agent whose model has a 16k window (the
 * fixture model refuses a larger request, `config.model.contextWindow: 16000`), the default
 * `config.context` (compact at 0.8). A turn that compacts shows a `data-compaction` part; its
 * summary calls are the fixture's calls with our summary prompt. Reported: compactions per 100
 * turns, the median wall time of a turn with and without one (the difference is the
 * compaction's), the summary calls' tokens per compaction, and that no request passed the window.
 */
import { performance } from 'node:perf_hooks';
import type { UIMessageChunk } from 'ai';
import { requestUiMessageStream } from '../../cli/chat/ui-stream-reader.js';
import { summaryPromptHeading } from '../../fixtures/model-server/context-window.js';
import { startFixtureModel } from '../../fixtures/model-server/fixture-model-server.js';
import { benchModelKey, startBenchStack } from './bench-processes.js';

export interface CompactionBenchResult {
  turns: number;
  storedMessages: number;
  contextWindow: number;
  compactions: number;
  compactionsPer100Turns: number;
  /** Median wall time of a turn without and with a compaction, and their difference. */
  turnMedianMs: number;
  compactingTurnMedianMs: number;
  compactionMs: number;
  /** Per compaction: summary calls, and their input and output tokens (medians). */
  summaryCallsPerCompaction: number;
  summaryInputTokens: number;
  summaryOutputTokens: number;
  /** The estimate before and after (medians of the data-compaction parts). */
  tokensBefore: number;
  tokensAfter: number;
  /** The largest request the fixture received, in its tokens; refused requests (over the window). */
  largestRequestTokens: number;
  refusedRequests: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const words = 'the launch plan needs a budget review before Friday and the design team wants two more days for the landing page while sales asks about pricing tiers'.split(' ');

export async function runCompactionBench(options: { messages?: number; contextWindow?: number } = {}): Promise<CompactionBenchResult> {
  const { messages = 10_000, contextWindow = 16_000 } = options;
  const model = await startFixtureModel({ apiKey: benchModelKey, contextWindow, replyWords: 60 });
  const stack = await startBenchStack({ modelBaseURL: model.baseURL });
  try {
    await fetch(`${stack.accountUrl}/accounts/me/agents/bench`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.secret}` },
      body: JSON.stringify({ config: { system: 'You are a patient project assistant.', provider: { openai: { apiKey: benchModelKey, baseURL: model.baseURL, model: 'fixture', api: 'chat' } }, model: { provider: 'openai', id: 'fixture', contextWindow } } }),
    });
    const turns = messages / 2;
    const plain: number[] = [];
    const compacting: number[] = [];
    const reports: { tokensBefore: number; tokensAfter: number }[] = [];
    for (let turn = 0; turn < turns; turn += 1) {
      const message = `Turn ${turn}: ${Array.from({ length: 60 }, (_, index) => words[(turn + index * 7) % words.length]).join(' ')}`;
      const started = performance.now();
      const chunks = await requestUiMessageStream({ url: `${stack.agentUrl}/agents/bench/chat`, secret: stack.secret, body: { conversationKey: 'long', message } });
      let last: UIMessageChunk | undefined;
      let compaction: { tokensBefore: number; tokensAfter: number } | undefined;
      for await (const chunk of chunks) {
        last = chunk;
        if (chunk.type === 'data-compaction') compaction = (chunk as { data: { tokensBefore: number; tokensAfter: number } }).data;
      }
      const elapsed = performance.now() - started;
      if (last?.type !== 'finish') throw new Error(`turn ${turn} ended with ${JSON.stringify(last)}`);
      if (compaction) {
        compacting.push(elapsed);
        reports.push(compaction);
      } else plain.push(elapsed);
    }
    const calls = model.calls();
    const summaryCalls = calls.filter((call) => JSON.stringify(call.body).includes(summaryPromptHeading));
    const turnMedianMs = median(plain);
    const compactingTurnMedianMs = median(compacting);
    const result: CompactionBenchResult = {
      turns,
      storedMessages: messages,
      contextWindow,
      compactions: compacting.length,
      compactionsPer100Turns: (compacting.length / turns) * 100,
      turnMedianMs,
      compactingTurnMedianMs,
      compactionMs: compactingTurnMedianMs - turnMedianMs,
      summaryCallsPerCompaction: summaryCalls.length / Math.max(1, compacting.length),
      summaryInputTokens: median(summaryCalls.map((call) => call.usage?.inputTokens ?? 0)),
      summaryOutputTokens: median(summaryCalls.map((call) => call.usage?.outputTokens ?? 0)),
      tokensBefore: median(reports.map((report) => report.tokensBefore)),
      tokensAfter: median(reports.map((report) => report.tokensAfter)),
      largestRequestTokens: Math.max(...calls.map((call) => call.usage?.inputTokens ?? 0)),
      refusedRequests: calls.filter((call) => call.usage === undefined).length,
    };
    console.log(`compaction: one conversation to ${messages} stored messages (${turns} SSE turns) with a ${contextWindow}-token window, default config.context`);
    console.log(`  ${result.compactions} compactions, ${result.compactionsPer100Turns.toFixed(1)} per 100 turns; ${result.summaryCallsPerCompaction.toFixed(2)} summary calls each (median ${result.summaryInputTokens} input and ${result.summaryOutputTokens} output tokens per call)`);
    console.log(`  turn: ${turnMedianMs.toFixed(1)} ms, with a compaction ${compactingTurnMedianMs.toFixed(1)} ms: a compaction costs ${result.compactionMs.toFixed(1)} ms (the fixture model answers at once)`);
    console.log(`  estimate before ${result.tokensBefore} and after ${result.tokensAfter} tokens (medians); largest request ${result.largestRequestTokens} tokens; ${result.refusedRequests} refused`);
    return result;
  } finally {
    await stack.close();
    await model.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runCompactionBench();
}
