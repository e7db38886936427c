/**
 * What an MCP tool costs a turn: the same JSON turn (the fixture model calls one tool, then
 * answers) with the tool built in (`test_async` with no wait, run in the service) and with the
 * tool on the fixture MCP server (`fixture__ping`, over Streamable HTTP on loopback, through
 * the pooled connection). The service, the model and the MCP server run in their own
 * processes; the two agents are measured in alternating rounds so both see the same machine.
 * Reported: mean and median ms per turn of each, and the ratio MCP / built-in.
 *
 *   npx tsx scripts/bench/mcp.ts [--turns 200]
 */
import { performance } from 'node:perf_hooks';
import { benchModelKey, startBenchStack, startChild } from './bench-processes.js';

export interface McpBenchSide {
  meanMsPerTurn: number;
  medianMsPerTurn: number;
}

export interface McpBenchResult {
  builtIn: McpBenchSide;
  mcp: McpBenchSide;
  /** MCP mean / built-in mean. */
  ratio: number;
  turns: number;
}

function summary(values: number[]): McpBenchSide {
  const sorted = [...values].sort((left, right) => left - right);
  return { meanMsPerTurn: values.reduce((total, value) => total + value, 0) / values.length, medianMsPerTurn: sorted[Math.floor(sorted.length / 2)]! };
}

export async function runMcpBench(options: { turns?: number; rounds?: number } = {}): Promise<McpBenchResult> {
  const turns = options.turns ?? 200;
  const rounds = options.rounds ?? 10;
  const stack = await startBenchStack();
  const mcpServer = await startChild(['fixtures/mcp-server/main.ts', '--bearer', 'bench-mcp-token-0123456789']);
  try {
    const provider = { openai: { apiKey: benchModelKey, baseURL: stack.modelBaseURL, model: 'fixture', api: 'chat' } };
    const agents = {
      builtin: { provider, tools: { test_async: { durationMs: 0 } } },
      mcp: { provider, mcp: { fixture: { url: mcpServer.ready.url!, headers: { Authorization: 'Bearer bench-mcp-token-0123456789' }, tools: { allow: ['ping'] } } } },
    };
    for (const [agentId, config] of Object.entries(agents)) {
      const reply = await fetch(`${stack.accountUrl}/accounts/me/agents/${agentId}`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.secret}` }, body: JSON.stringify({ config }) });
      if (reply.status >= 300) throw new Error(`configuring ${agentId}: ${reply.status} ${await reply.text()}`);
    }
    const turn = async (agentId: string, tool: string, index: number): Promise<void> => {
      const reply = await fetch(`${stack.agentUrl}/agents/${agentId}/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.secret}` },
        body: JSON.stringify({ conversationKey: `bench-${index}`, message: `call ${tool} {}\nthen done` }),
      });
      const body = (await reply.json()) as { status?: string; messages?: { role: string; content: { type: string; output?: { type: string } }[] }[] };
      const output = body.messages?.find((message) => message.role === 'tool')?.content[0]?.output;
      if (reply.status !== 200 || body.status !== 'completed' || !output || output.type.startsWith('error')) throw new Error(`${agentId} turn ${index}: ${reply.status} ${JSON.stringify(body).slice(0, 300)}`);
    };
    const builtIn = (index: number) => turn('builtin', 'test_async', index);
    const mcp = (index: number) => turn('mcp', 'fixture__ping', index);
    for (let index = 0; index < 30; index += 1) {
      await builtIn(-index - 1);
      await mcp(-index - 1);
    }
    const samples = { builtIn: [] as number[], mcp: [] as number[] };
    const perRound = Math.ceil(turns / rounds);
    for (let round = 0; round < rounds; round += 1) {
      for (const [side, run] of [['builtIn', builtIn], ['mcp', mcp]] as const) {
        for (let index = 0; index < perRound; index += 1) {
          const started = performance.now();
          await run(round * perRound + index);
          samples[side].push(performance.now() - started);
        }
      }
    }
    const result: McpBenchResult = { builtIn: summary(samples.builtIn), mcp: summary(samples.mcp), ratio: 0, turns: perRound * rounds };
    result.ratio = result.mcp.meanMsPerTurn / result.builtIn.meanMsPerTurn;
    console.log(`mcp: one JSON turn calling one tool, fixture model at 0 ms latency, ${result.turns} turns each at concurrency 1, alternating rounds`);
    console.log(`  built-in  mean ${result.builtIn.meanMsPerTurn.toFixed(2)} ms/turn, median ${result.builtIn.medianMsPerTurn.toFixed(2)} ms/turn`);
    console.log(`  MCP       mean ${result.mcp.meanMsPerTurn.toFixed(2)} ms/turn, median ${result.mcp.medianMsPerTurn.toFixed(2)} ms/turn`);
    console.log(`  ratio MCP / built-in: ${result.ratio.toFixed(2)}`);
    return result;
  } finally {
    mcpServer.child.kill('SIGTERM');
    await mcpServer.child.catch(() => undefined);
    await stack.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const index = process.argv.indexOf('--turns');
  await runMcpBench(index >= 0 ? { turns: Number(process.argv[index + 1]) } : {});
}
