/**
 * A turn's cost against the length of its conversation: the same SSE turn on a conversation
 * with 10 stored messages and on one with 2,000, in alternating rounds. A turn writes only
 * the messages it adds, so the ratio should stay near 1 (target ≤ 1.2x); what remains is the
 * model request, which carries the whole history.
 */
import { performance } from 'node:perf_hooks';
import { createOpenAI } from '@ai-sdk/openai';
import { type ModelMessage, streamText, type UIMessageChunk } from 'ai';
import { requestUiMessageStream } from '../../cli/chat/ui-stream-reader.js';
import { benchModelKey, startBenchStack } from './bench-processes.js';

export interface ConversationLengthResult {
  shortMessages: number;
  longMessages: number;
  shortMedianMs: number;
  longMedianMs: number;
  ratio: number;
  /** The same model request without the service (a bare `streamText` with the same history). */
  bareShortMedianMs: number;
  bareLongMedianMs: number;
  /** What the service adds to a turn (harness minus bare), long over short. */
  overheadRatio: number;
}

/** A history like the one the turns below store: a user message and the fixture's echo, repeated. */
function history(messages: number): ModelMessage[] {
  return Array.from({ length: messages }, (_, index): ModelMessage => (index % 2 === 0 ? { role: 'user', content: 'hello bench' } : { role: 'assistant', content: [{ type: 'text', text: 'Echo: hello bench' }] }));
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
    const openai = createOpenAI({ apiKey: benchModelKey, baseURL: stack.modelBaseURL });
    const histories = { bareShort: [...history(10), { role: 'user', content: 'hello bench' } as ModelMessage], bareLong: [...history(longMessages), { role: 'user', content: 'hello bench' } as ModelMessage] };
    const bare = async (messages: ModelMessage[]) => {
      const result = streamText({ model: openai.chat('fixture'), messages });
      for await (const _ of result.toUIMessageStream()) {
        // read every chunk, as the harness client does
      }
    };
    const samples = { short: [] as number[], long: [] as number[], bareShort: [] as number[], bareLong: [] as number[] };
    for (let round = 0; round < 10; round += 1) {
      for (const side of ['short', 'long', 'bareShort', 'bareLong'] as const) {
        for (let index = 0; index < turnsPerSide / 10; index += 1) {
          const started = performance.now();
          if (side === 'short' || side === 'long') await turn(side);
          else await bare(histories[side]);
          samples[side].push(performance.now() - started);
        }
      }
    }
    const [shortMedianMs, longMedianMs, bareShortMedianMs, bareLongMedianMs] = [median(samples.short), median(samples.long), median(samples.bareShort), median(samples.bareLong)];
    const result = {
      shortMessages: 10,
      longMessages,
      shortMedianMs,
      longMedianMs,
      ratio: longMedianMs / shortMedianMs,
      bareShortMedianMs,
      bareLongMedianMs,
      overheadRatio: (longMedianMs - bareLongMedianMs) / Math.max(0.01, shortMedianMs - bareShortMedianMs),
    };
    console.log('conversation length: the same SSE turn on a short and on a long conversation (alternating rounds)');
    console.log(`  ${result.shortMessages} stored messages: ${result.shortMedianMs.toFixed(2)} ms/turn; ${result.longMessages}: ${result.longMedianMs.toFixed(2)} ms/turn; ratio ${result.ratio.toFixed(2)}x (target <= 1.2x)`);
    console.log(`  bare streamText with the same history: ${result.bareShortMedianMs.toFixed(2)} ms and ${result.bareLongMedianMs.toFixed(2)} ms; what the service adds, long over short: ${result.overheadRatio.toFixed(2)}x`);
    return result;
  } finally {
    await stack.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runConversationLengthBench();
}
