/**
 * A turn's cost against the length of its conversation: the same SSE turn on a conversation
 * with 10 stored messages and on one with 2,000, in alternating rounds. A turn writes only
 * the messages it adds, so the ratio should stay near 1 (target ≤ 1.2x); what remains is the
 * model request, which carries the whole history.
 */
import { performance } from 'node:perf_hooks';
import type { UIMessageChunk } from 'ai';
import { requestUiMessageStream } from '../../cli/chat/ui-stream-reader.js';
import { startBenchStack } from './bench-processes.js';

export interface ConversationLengthResult {
  shortMessages: number;
  longMessages: number;
  shortMedianMs: number;
  longMedianMs: number;
  ratio: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function runConversationLengthBench(longMessages = 2000, turnsPerSide = 200): Promise<ConversationLengthResult> {
  const stack = await startBenchStack();
  try {
    const turn = async (conversationKey: string) => {
      const chunks = await requestUiMessageStream({ url: `${stack.agentUrl}/agents/bench/chat`, secret: stack.secret, body: { conversationKey, message: 'hello bench' } });
      let last: UIMessageChunk | undefined;
      for await (const chunk of chunks) last = chunk;
      if (last?.type !== 'finish') throw new Error(`the turn ended with ${JSON.stringify(last)}`);
    };
    // Each turn stores two messages (the user's and the model's answer).
    for (let index = 0; index < 5; index += 1) await turn('short');
    for (let index = 0; index < longMessages / 2; index += 1) await turn('long');
    const samples = { short: [] as number[], long: [] as number[] };
    for (let round = 0; round < 10; round += 1) {
      for (const side of ['short', 'long'] as const) {
        for (let index = 0; index < turnsPerSide / 10; index += 1) {
          const started = performance.now();
          await turn(side);
          samples[side].push(performance.now() - started);
        }
      }
    }
    const result = { shortMessages: 10, longMessages, shortMedianMs: median(samples.short), longMedianMs: median(samples.long), ratio: median(samples.long) / median(samples.short) };
    console.log('conversation length: the same SSE turn on a short and on a long conversation (alternating rounds)');
    console.log(`  ${result.shortMessages} stored messages: ${result.shortMedianMs.toFixed(2)} ms/turn; ${result.longMessages}: ${result.longMedianMs.toFixed(2)} ms/turn; ratio ${result.ratio.toFixed(2)}x (target <= 1.2x)`);
    return result;
  } finally {
    await stack.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runConversationLengthBench();
}
