/**
 * How close the service's token estimate (server/core/context/token-count.ts: the characters
 * of each message's JSON over 4) is to a real count, on a realistic mix of requests: prose,
 * tool calls with JSON results, JSON pasted and answered, code. Two references:
 * - the fixture model's reported input tokens (its request body's characters over 4): what the
 *   calibration meets in the tests;
 * - OpenAI's o200k_base tokenizer (`gpt-tokenizer`, when installed; it is not a dependency of
 *   the service: `HARNESS_BENCH_TOKENIZER=<folder holding node_modules/gpt-tokenizer>`), counted
 *   as Chat Completions frames a request (3 tokens a message + its role and contents, tool
 *   calls' names and arguments, tool definitions as their JSON, 3 to prime the answer).
 * For each, the error before calibration and after it (`TokenCalibration` learns from each
 * request's reported count, in order, as a turn's first call teaches the next one).
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, type ModelMessage, tool, type ToolSet } from 'ai';
import { estimateRequestTokens, TokenCalibration } from '../../server/core/context/token-count.js';
import { startFixtureModel } from '../../fixtures/model-server/fixture-model-server.js';

interface Sample {
  kind: 'prose' | 'tools' | 'json' | 'code';
  system: string;
  messages: ModelMessage[];
}

export interface EstimateErrorRow {
  reference: 'fixture model' | 'o200k_base';
  kind: Sample['kind'] | 'all';
  /** Mean of (estimate - reference) / reference, and the largest |error|, before and after calibration. */
  meanError: number;
  maxError: number;
  calibratedMeanError: number;
  calibratedMaxError: number;
}

const words = 'the launch plan needs a budget review before Friday and the design team wants two more days for the landing page while sales asks about pricing tiers'.split(' ');
const prose = (seed: number, count: number) => Array.from({ length: count }, (_, index) => words[(seed * 7 + index * 3) % words.length]).join(' ') + '.';

const tools: ToolSet = {
  webSearch: tool({
    description: 'Search the web and return the top results with title, url and snippet.',
    inputSchema: jsonSchema<{ query: string; maxResults?: number }>({ type: 'object', properties: { query: { type: 'string', description: 'What to search for' }, maxResults: { type: 'integer', minimum: 1, maximum: 10 } }, required: ['query'] }),
  }),
  createTicket: tool({
    description: 'Open a support ticket in the tracker.',
    inputSchema: jsonSchema<{ title: string; priority: string }>({ type: 'object', properties: { title: { type: 'string' }, priority: { type: 'string', enum: ['low', 'normal', 'high'] }, labels: { type: 'array', items: { type: 'string' } } }, required: ['title', 'priority'] }),
  }),
};

function searchResult(seed: number) {
  return Array.from({ length: 5 }, (_, index) => ({ title: `Result ${seed}-${index}: ${prose(seed + index, 6)}`, url: `https://example.com/articles/${seed}/${index}?ref=search`, snippet: prose(seed * 3 + index, 30), score: Math.round(1000 / (index + 1)) / 1000 }));
}

const code = (seed: number) =>
  `export async function load${seed}(id: string): Promise<Record<string, unknown>> {\n  const response = await fetch(\`/api/items/\${id}?v=${seed}\`);\n  if (!response.ok) throw new Error(\`failed: \${response.status}\`);\n  const body = (await response.json()) as { items: { id: string; price: number }[] };\n  return Object.fromEntries(body.items.map((item) => [item.id, item.price * ${seed}]));\n}\n`;

function sample(kind: Sample['kind'], seed: number): Sample {
  const system = `You are the assistant of team ${seed}. ${prose(seed, 40)}`;
  const messages: ModelMessage[] = [];
  for (let turn = 0; turn < 4 + (seed % 5); turn += 1) {
    const id = `call_${seed}_${turn}`;
    if (kind === 'prose') {
      messages.push({ role: 'user', content: prose(seed + turn, 30 + ((seed * turn) % 60)) });
      messages.push({ role: 'assistant', content: [{ type: 'text', text: prose(seed * 2 + turn, 80 + ((seed + turn) % 120)) }] });
    } else if (kind === 'tools') {
      messages.push({ role: 'user', content: `Look up ${prose(seed + turn, 8)}` });
      messages.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'webSearch', input: { query: prose(seed + turn, 6), maxResults: 5 } }] });
      messages.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'webSearch', output: { type: 'json', value: searchResult(seed + turn) } }] });
      messages.push({ role: 'assistant', content: [{ type: 'text', text: prose(seed + turn * 5, 60) }] });
    } else if (kind === 'json') {
      const record = { order: seed * 100 + turn, customer: { name: `Customer ${seed}`, email: `c${seed}@example.com` }, lines: Array.from({ length: 6 }, (_, index) => ({ sku: `SKU-${seed}-${index}`, quantity: index + 1, price: 9.99 * (index + 1) })), notes: prose(seed + turn, 15) };
      messages.push({ role: 'user', content: `Check this order and answer as JSON:\n${JSON.stringify(record, null, 2)}` });
      messages.push({ role: 'assistant', content: [{ type: 'text', text: JSON.stringify({ valid: turn % 2 === 0, total: record.lines.reduce((sum, line) => sum + line.price * line.quantity, 0), issues: [prose(seed, 10)] }) }] });
    } else {
      messages.push({ role: 'user', content: `Why does this fail?\n\`\`\`ts\n${code(seed + turn)}\`\`\`` });
      messages.push({ role: 'assistant', content: [{ type: 'text', text: `${prose(seed + turn, 40)}\n\`\`\`ts\n${code(seed + turn + 1)}\`\`\`` }] });
    }
  }
  messages.push({ role: 'user', content: prose(seed + 99, 12) });
  return { kind, system, messages };
}

type CountTokens = (text: string) => number;

/** The request as Chat Completions frames it, counted by o200k_base (the OpenAI cookbook's rule, tools as their JSON). */
function tokenizerCount(countTokens: CountTokens, request: Sample, toolSet: ToolSet): number {
  let total = 3 + 4 + countTokens(request.system);
  for (const message of request.messages) {
    total += 4;
    if (typeof message.content === 'string') {
      total += countTokens(message.content);
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text') total += countTokens(part.text);
      else if (part.type === 'tool-call') total += countTokens(part.toolName) + countTokens(JSON.stringify(part.input)) + 3;
      else if (part.type === 'tool-result') total += countTokens(JSON.stringify((part.output as { value: unknown }).value));
    }
  }
  for (const [name, definition] of Object.entries(toolSet)) total += countTokens(name) + countTokens(typeof definition.description === 'string' ? definition.description : '') + countTokens(JSON.stringify((definition.inputSchema as { jsonSchema: unknown }).jsonSchema)) + 8;
  return total;
}

function errors(pairs: { estimate: number; reference: number }[]): Pick<EstimateErrorRow, 'meanError' | 'maxError' | 'calibratedMeanError' | 'calibratedMaxError'> {
  const calibration = new TokenCalibration();
  const raw: number[] = [];
  const calibrated: number[] = [];
  for (const { estimate, reference } of pairs) {
    raw.push((estimate - reference) / reference);
    calibrated.push((calibration.apply('model', estimate) - reference) / reference);
    calibration.record('model', estimate, reference);
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const max = (values: number[]) => Math.max(...values.map(Math.abs));
  // The first request has nothing to calibrate from: left out of the calibrated figures.
  return { meanError: mean(raw), maxError: max(raw), calibratedMeanError: mean(calibrated.slice(1)), calibratedMaxError: max(calibrated.slice(1)) };
}

async function loadTokenizer(): Promise<CountTokens | undefined> {
  const folder = process.env.HARNESS_BENCH_TOKENIZER;
  const specifier = folder ? `${folder}/node_modules/gpt-tokenizer/esm/encoding/o200k_base.js` : 'gpt-tokenizer/encoding/o200k_base';
  try {
    return ((await import(specifier)) as { countTokens: CountTokens }).countTokens;
  } catch {
    return undefined;
  }
}

export async function runTokenEstimateBench(options: { perKind?: number } = {}): Promise<EstimateErrorRow[]> {
  const perKind = options.perKind ?? 12;
  const kinds: Sample['kind'][] = ['prose', 'tools', 'json', 'code'];
  const samples = kinds.flatMap((kind) => Array.from({ length: perKind }, (_, index) => sample(kind, index + 1)));
  const model = await startFixtureModel({ apiKey: 'sk-token-estimate-0123456789' });
  const countTokens = await loadTokenizer();
  const measured: { kind: Sample['kind']; estimate: number; fixture: number; tokenizer?: number }[] = [];
  try {
    const openai = createOpenAI({ apiKey: 'sk-token-estimate-0123456789', baseURL: model.baseURL });
    for (const request of samples) {
      const result = await generateText({ model: openai.chat('fixture'), system: request.system, messages: request.messages, tools, maxRetries: 0 });
      const estimate = estimateRequestTokens(request.system, tools, request.messages);
      measured.push({ kind: request.kind, estimate, fixture: result.usage.inputTokens ?? 0, ...(countTokens ? { tokenizer: tokenizerCount(countTokens, request, tools) } : {}) });
    }
  } finally {
    await model.close();
  }
  const rows: EstimateErrorRow[] = [];
  for (const kind of [...kinds, 'all' as const]) {
    const chosen = measured.filter((entry) => kind === 'all' || entry.kind === kind);
    rows.push({ reference: 'fixture model', kind, ...errors(chosen.map((entry) => ({ estimate: entry.estimate, reference: entry.fixture }))) });
    if (countTokens) rows.push({ reference: 'o200k_base', kind, ...errors(chosen.map((entry) => ({ estimate: entry.estimate, reference: entry.tokenizer! }))) });
  }
  const percent = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}%`;
  console.log(`token estimate: chars/4 of each message's JSON against ${countTokens ? 'the fixture model and o200k_base' : 'the fixture model (gpt-tokenizer not installed)'}; ${samples.length} requests of ${perKind} per kind (error: estimate over reference - 1)`);
  for (const row of rows) {
    console.log(`  ${row.reference.padEnd(13)} ${row.kind.padEnd(5)} mean ${percent(row.meanError)}, max |${(row.maxError * 100).toFixed(1)}%|; calibrated mean ${percent(row.calibratedMeanError)}, max |${(row.calibratedMaxError * 100).toFixed(1)}%|`);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runTokenEstimateBench();
}
