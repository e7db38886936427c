/**
 * A turn's cost against the length of its conversation: the same SSE turn on a conversation
 * of 10 stored messages and on one of 2,000, in interleaved turns, with a bare `streamText`
 * given the very same histories (read back from the service) in the same rounds.
 *
 * Two figures. The whole turn grows with what the model request carries (the AI SDK validates
 * and converts every message, the body grows). With context management on (the default
 * `config.context`, compact at 0.8 of the window; 32k for this unknown model), what is sent is
 * the latest summary and what followed it, bounded by the window, not the stored history. The
 * bare call of a long turn is given what the service sent (the stored conversation's latest
 * summary marker and the messages after it, read back before each bare call). What the service
 * adds (turn minus bare call) is its own cost, and that one must not grow: target ≤ 1.2x, long
 * over short.
 *
 * `--postgres`: the service stores on a throwaway PostgreSQL server instead of lowdb files.
 */
import { performance } from 'node:perf_hooks';
import { createOpenAI } from '@ai-sdk/openai';
import { type ModelMessage, streamText, toUIMessageStream, type UIMessageChunk } from 'ai';
import { requestUiMessageStream } from '../../cli/chat/ui-stream-reader.js';
import { startPostgresServer, type PostgresServer } from '../../test/support/postgres-server.js';
import { benchModelKey, processCpuMs, startBenchStack, type BenchStack } from './bench-processes.js';

export interface ConversationLengthResult {
  storage: 'lowdb' | 'postgres';
  shortMessages: number;
  longMessages: number;
  /** Median time of one harness turn. */
  shortMedianMs: number;
  longMedianMs: number;
  /** Whole turn, long over short: includes the model request, which carries the history. */
  ratio: number;
  /** The same model request without the service (a bare `streamText` with the same history). */
  bareShortMedianMs: number;
  bareLongMedianMs: number;
  /** What the service adds to a turn (harness minus bare at the same history). */
  overheadShortMs: number;
  overheadLongMs: number;
  /** The service's own cost, long over short (the target applies to this one). */
  overheadRatio: number;
  /** Messages the last long turn sent (summary included), and the summaries written during the measured turns. */
  longSentMessages: number;
  compactionsMeasured: number;
  /**
   * The same comparison in CPU time, which a busy machine does not stretch: the service
   * process's CPU per turn minus this process's CPU per bare call (Linux only).
   */
  cpu?: { serviceShortMs: number; serviceLongMs: number; bareShortMs: number; bareLongMs: number; overheadShortMs: number; overheadLongMs: number; overheadRatio: number };
}

function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function storedMessages(stack: BenchStack, conversationKey: string): Promise<(ModelMessage & { compaction?: { summarizedThrough: number } })[]> {
  const response = await fetch(`${stack.agentUrl}/agents/bench/conversations/${conversationKey}`, { headers: { authorization: `Bearer ${stack.secret}` } });
  if (!response.ok) throw new Error(`reading conversation ${conversationKey}: ${response.status}`);
  return ((await response.json()) as { messages: (ModelMessage & { compaction?: { summarizedThrough: number } })[] }).messages;
}

/** What the service sends of a stored conversation (docs/context.md): its latest summary, then the messages after what it covers. */
function sentHistory(stored: (ModelMessage & { compaction?: { summarizedThrough: number } })[]): ModelMessage[] {
  const markerIndex = stored.findLastIndex((message) => message.compaction !== undefined);
  if (markerIndex < 0) return stored;
  const { compaction, ...summary } = stored[markerIndex]!;
  return [summary as ModelMessage, ...stored.slice(compaction!.summarizedThrough).filter((message) => message.compaction === undefined)];
}

/**
 * Each measured short turn runs on its own conversation of exactly `shortMessages` stored
 * messages. The long side is one conversation measured while it grows by two messages a turn,
 * from `longMessages - turnsPerSide` to `longMessages + turnsPerSide`, so its turns centre on
 * `longMessages`; the bare call of each long turn gets the history that turn had.
 */
export async function runConversationLengthBench(options: { longMessages?: number; turnsPerSide?: number; postgres?: boolean } = {}): Promise<ConversationLengthResult> {
  const { longMessages = 2000, turnsPerSide = 100 } = options;
  const shortMessages = 10;
  let postgres: PostgresServer | undefined;
  if (options.postgres) postgres = await startPostgresServer();
  const stack = await startBenchStack(postgres ? { environment: { HARNESS_DATABASE_URL: postgres.adminUrl } } : {});
  try {
    const turn = async (conversationKey: string) => {
      const chunks = await requestUiMessageStream({ url: `${stack.agentUrl}/agents/bench/chat`, secret: stack.secret, body: { conversationKey, message: 'hello bench' } });
      let last: UIMessageChunk | undefined;
      for await (const chunk of chunks) last = chunk;
      if (last?.type !== 'finish') throw new Error(`the turn ended with ${JSON.stringify(last)}`);
    };
    // Each turn stores two messages (the user's and the model's answer).
    for (let conversation = 0; conversation < turnsPerSide; conversation += 1) {
      for (let index = 0; index < shortMessages / 2; index += 1) await turn(`short-${conversation}`);
    }
    for (let index = 0; index < (longMessages - turnsPerSide) / 2; index += 1) await turn('long');
    const userMessage: ModelMessage = { role: 'user', content: 'hello bench' };
    const shortHistory = [...(await storedMessages(stack, 'short-0')), userMessage];
    // What the last long turn sent (read back before each bare call, outside its timing).
    let longSent = sentHistory(await storedMessages(stack, 'long'));
    const longHistory = () => [...longSent, userMessage];
    let summaries = (await storedMessages(stack, 'long')).filter((message) => message.compaction).length;

    const openai = createOpenAI({ apiKey: benchModelKey, baseURL: stack.modelBaseURL });
    const bare = async (messages: ModelMessage[]) => {
      const result = streamText({ model: openai.chat('fixture'), messages });
      for await (const _ of toUIMessageStream({ stream: result.stream })) {
        // read every chunk, as the harness client does
      }
    };
    const samples = { short: [] as number[], long: [] as number[], bareShort: [] as number[], bareLong: [] as number[] };
    // CPU per side: the service's for harness turns, this process's for bare calls.
    const cpuTotals = { short: 0, long: 0, bareShort: 0, bareLong: 0 };
    const cpuOf = (side: keyof typeof samples) => (side === 'short' || side === 'long' ? processCpuMs(stack.servicePid) : ownCpuMs());
    const counts = { short: 0, long: 0, bareShort: 0, bareLong: 0 };
    const run = async (side: keyof typeof samples) => {
      const index = counts[side]++;
      if (side === 'short') return turn(`short-${index}`);
      if (side === 'long') return turn('long');
      return bare(side === 'bareShort' ? shortHistory : longHistory());
    };
    // Warm up both paths of this process (JIT) on throwaway calls before measuring.
    for (let index = 0; index < 20; index += 1) await bare(index % 2 === 0 ? shortHistory : longHistory());
    // One turn of each side per step, in an order that rotates every step: each side follows
    // each other side equally often, so none is measured always after the service sat idle
    // (this VM's idle vCPUs wake slowly) or always right after a heavy call.
    const sides = ['short', 'long', 'bareShort', 'bareLong'] as const;
    for (let step = 0; step < turnsPerSide; step += 1) {
      for (let offset = 0; offset < sides.length; offset += 1) {
        const side = sides[(step + offset) % sides.length]!;
        if (side === 'bareLong') longSent = sentHistory(await storedMessages(stack, 'long'));
        const cpuBefore = cpuOf(side);
        const started = performance.now();
        await run(side);
        samples[side].push(performance.now() - started);
        cpuTotals[side] += (cpuOf(side) ?? 0) - (cpuBefore ?? 0);
      }
    }
    const finalStored = await storedMessages(stack, 'long');
    const compactionsMeasured = finalStored.filter((message) => message.compaction).length - summaries;
    summaries += compactionsMeasured;
    const [shortMedianMs, longMedianMs, bareShortMedianMs, bareLongMedianMs] = [median(samples.short), median(samples.long), median(samples.bareShort), median(samples.bareLong)];
    const overheadShortMs = shortMedianMs - bareShortMedianMs;
    const overheadLongMs = longMedianMs - bareLongMedianMs;
    const perTurn = (side: keyof typeof cpuTotals) => cpuTotals[side] / turnsPerSide;
    const cpu =
      processCpuMs(stack.servicePid) === undefined
        ? undefined
        : {
            serviceShortMs: perTurn('short'),
            serviceLongMs: perTurn('long'),
            bareShortMs: perTurn('bareShort'),
            bareLongMs: perTurn('bareLong'),
            overheadShortMs: perTurn('short') - perTurn('bareShort'),
            overheadLongMs: perTurn('long') - perTurn('bareLong'),
            overheadRatio: (perTurn('long') - perTurn('bareLong')) / Math.max(0.01, perTurn('short') - perTurn('bareShort')),
          };
    const result: ConversationLengthResult = {
      storage: postgres ? 'postgres' : 'lowdb',
      shortMessages,
      longMessages,
      shortMedianMs,
      longMedianMs,
      ratio: longMedianMs / shortMedianMs,
      bareShortMedianMs,
      bareLongMedianMs,
      overheadShortMs,
      overheadLongMs,
      overheadRatio: overheadLongMs / Math.max(0.01, overheadShortMs),
      longSentMessages: sentHistory(finalStored).length + 1,
      compactionsMeasured,
      ...(cpu ? { cpu } : {}),
    };
    console.log(`conversation length (${result.storage}): the same SSE turn at ${shortMessages} and at ${longMessages} stored messages, and a bare streamText with the same histories (interleaved, medians)`);
    console.log(`  the long turns sent ${result.longSentMessages} messages at the end (${summaries} summaries stored, ${compactionsMeasured} written during the measured turns)`);
    console.log(`  harness turn: ${shortMedianMs.toFixed(2)} ms and ${longMedianMs.toFixed(2)} ms, ratio ${result.ratio.toFixed(2)}x (includes the model request, which carries the history)`);
    console.log(`  bare streamText: ${bareShortMedianMs.toFixed(2)} ms and ${bareLongMedianMs.toFixed(2)} ms, ratio ${(bareLongMedianMs / bareShortMedianMs).toFixed(2)}x`);
    console.log(`  what the service adds: ${overheadShortMs.toFixed(2)} ms and ${overheadLongMs.toFixed(2)} ms, ratio ${result.overheadRatio.toFixed(2)}x (target <= 1.2x)`);
    if (cpu) {
      console.log(`  CPU per turn: service ${cpu.serviceShortMs.toFixed(2)} and ${cpu.serviceLongMs.toFixed(2)} ms, bare call ${cpu.bareShortMs.toFixed(2)} and ${cpu.bareLongMs.toFixed(2)} ms;`);
      console.log(`  the service's own CPU: ${cpu.overheadShortMs.toFixed(2)} and ${cpu.overheadLongMs.toFixed(2)} ms, ratio ${cpu.overheadRatio.toFixed(2)}x`);
    }
    return result;
  } finally {
    await stack.close();
    await postgres?.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runConversationLengthBench({ postgres: process.argv.includes('--postgres') });
}
