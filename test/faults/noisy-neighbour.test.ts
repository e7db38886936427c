import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureModel, type FixtureModelServer } from '../../fixtures/model-server/fixture-model-server.js';
import { startFixtureSearch, type FixtureSearchServer } from '../../fixtures/search-server/fixture-search-server.js';
import { startEndlessModel, type EndlessModelServer } from '../support/endless-model-server.js';
import { startHostileMcpServer, type HostileMcpServer } from '../../fixtures/mcp-server/hostile-mcp-server.js';
import { requestJson } from '../support/json-request.js';
import { configureAttacker, largestStoredCall, runAttacks, tokensOnceSettled, type AttackStatuses } from '../support/noisy-attacker.js';
import { startServiceSampler } from '../support/service-sampler.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { startSilentWebhookSink, type SilentWebhookSink } from '../support/silent-webhook-sink.js';
import { temporaryFolder } from '../support/temporary-folder.js';
import { percentile, victimProbe } from '../support/victim-probe.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Issue 23: one account floods the service with everything at once (MCP output-schema and
 * 100 MB answer bombs, 300 MCP servers in one config, 40 `/async` requests to a webhook that
 * never answers, 300 resumes of one turn, a model that streams forever, approvals past the
 * daily token budget) while a second account runs ordinary turns. A real `harness serve`
 * process under `HARNESS_OUTBOUND_POLICY=public` (the loopback fixtures allowed by port) and a
 * daily token budget. Printed: the victim's turn latency and webhook delay unloaded and
 * loaded, the worst `GET /`, the peak RSS and the attacker's tokens against the budget.
 */
const modelKey = 'sk-noisy-neighbour-key-0123456789';
const searchKey = 'tvly-noisy-neighbour-key-0123456789';
const tokensPerDay = 20_000;
const floodMs = 30_000;
const victimTurns = 15;

const milliseconds = (value: number) => `${Math.round(value)} ms`;
const mebibytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

describe('fault: a noisy neighbour', () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  let model: FixtureModelServer;
  let slowModel: FixtureModelServer;
  let search: FixtureSearchServer;
  let endless: EndlessModelServer;
  let evil: HostileMcpServer;
  let sink: SilentWebhookSink;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let service: ServiceProcess;

  beforeAll(async () => {
    folder = await temporaryFolder();
    model = await startFixtureModel({ apiKey: modelKey });
    slowModel = await startFixtureModel({ apiKey: modelKey, chunkDelayMs: 25 });
    search = await startFixtureSearch({ apiKey: searchKey });
    endless = await startEndlessModel();
    evil = await startHostileMcpServer({ regexLength: 27, hugeLength: 100 * 1024 * 1024 });
    sink = await startSilentWebhookSink();
    receiver = await startWebhookReceiver();
    const ports = [model.baseURL, slowModel.baseURL, endless.baseURL, evil.url(), sink.url, receiver.url].map((url) => `127.0.0.1:${new URL(url).port}`);
    service = await startServiceProcess(folder.path, {
      ENABLE_WEBSOCKET: 'true',
      HARNESS_OUTBOUND_POLICY: 'public',
      HARNESS_OUTBOUND_ALLOW: ports.join(','),
      HARNESS_LIMIT_TOKENS_PER_DAY: String(tokensPerDay),
      ALPHA_BASE_URL: search.baseURL,
    });
  });
  afterAll(async () => {
    await service?.stop();
    await Promise.all([model, slowModel, search, endless, evil, sink, receiver].map((server) => server?.close()));
    await folder?.remove();
  });

  it('keeps answering, stays bounded, holds the budget, and the victim barely notices', async () => {
    const signUp = async (username: string) => String((await requestJson(`${service.accountUrl}/accounts`, { body: { username, description: 'noisy neighbour' } })).body.secret);
    const [attacker, victim] = [await signUp('attacker'), await signUp('victim')];
    const victimConfig = { provider: { openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture', api: 'chat' } }, webhooks: { completion: { url: receiver.url, secret: 'whsec-victim-0123456789abcdef' } } };
    expect((await requestJson(`${service.accountUrl}/accounts/me/agents/helper`, { method: 'PUT', secret: victim, body: { config: victimConfig } })).status).toBe(201);
    const configStatuses = await configureAttacker(service.accountUrl, attacker, {
      modelBaseURL: model.baseURL,
      slowModelBaseURL: slowModel.baseURL,
      modelKey,
      searchKey,
      endlessModelBaseURL: endless.baseURL,
      evilMcpUrl: (path) => evil.url(`/${path}`),
      silentSinkUrl: sink.url,
    });
    const probe = victimProbe(service.agentUrl, victim, 'helper', receiver);

    // Unloaded: warm up, then the victim alone.
    await probe.turns('warm', 3);
    const quiet = await probe.turns('quiet', victimTurns);
    const quietTurns = quiet.latencies;
    const quietWebhooks = [await probe.webhookDelay('quiet-hook-1'), await probe.webhookDelay('quiet-hook-2')];

    // Loaded: the attacker floods for floodMs while the victim goes on.
    const sampler = await startServiceSampler(`${service.agentUrl}/`, service.child.pid!);
    const flood = new AbortController();
    const floodEnds = Date.now() + floodMs;
    const stopFlood = setTimeout(() => flood.abort(), floodMs);
    const attacks = runAttacks(service.agentUrl, attacker, flood.signal);
    const loadedWebhooks = Promise.all([6_000, 12_000].map(async (delay, index) => {
      await new Promise((resolve) => setTimeout(resolve, delay));
      return probe.webhookDelay(`loaded-hook-${index}`);
    }));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const loaded = await probe.turns('loaded', victimTurns, floodEnds);
    const loadedTurns = loaded.latencies;
    const outcome = await attacks;
    clearTimeout(stopFlood);
    const loadedWebhookDelays = await loadedWebhooks;
    // The hostile peers go away; what they held in the service must be let go.
    await Promise.all([endless.close(), sink.close(), evil.close()]);
    const attackerTokens = await tokensOnceSettled(service.accountUrl, attacker);
    const samples = await sampler.stop();
    const root = await fetch(`${service.agentUrl}/`, { signal: AbortSignal.timeout(1_000) }).then((response) => response.status, () => 0);
    // The endless call was admitted at the start, with the budget unspent, and ran alongside the
    // approvals; it is stopped once the account's tokens reach the budget. (It is counted in the
    // day's total; no stored message carries its usage, its finish chunk does.)
    const largestCall = await largestStoredCall(service.agentUrl, attacker);
    const tokensBesideEndless = attackerTokens - outcome.endlessCallTokens;
    const figures = {
      quietP50: percentile(quietTurns, 0.5), quietP99: percentile(quietTurns, 0.99),
      loadedP50: percentile(loadedTurns, 0.5), loadedP99: percentile(loadedTurns, 0.99),
      quietWebhook: Math.max(...quietWebhooks), loadedWebhook: Math.max(...loadedWebhookDelays),
    };
    console.log(
      [
        'FAULT noisy neighbour (one account floods, another runs ordinary turns):',
        `  victim turn latency   p50 ${milliseconds(figures.quietP50)} -> ${milliseconds(figures.loadedP50)}, p99 ${milliseconds(figures.quietP99)} -> ${milliseconds(figures.loadedP99)} (unloaded ${JSON.stringify(quiet.statuses)}, loaded ${JSON.stringify(loaded.statuses)} by status${loaded.firstRefusal ? `; first refusal: ${loaded.firstRefusal}` : ''})`,
        `  victim webhook delay  ${milliseconds(figures.quietWebhook)} -> ${milliseconds(figures.loadedWebhook)} (worst of ${quietWebhooks.length} unloaded, ${loadedWebhookDelays.length} loaded)`,
        `  GET /                 worst ${milliseconds(samples.worstMs)} over ${samples.requests} requests (${samples.failures} failed), at the end: ${root}`,
        `  service RSS           ${mebibytes(samples.firstRssBytes)} -> peak ${mebibytes(samples.peakRssBytes)}`,
        `  attacker tokens       ${attackerTokens} against a budget of ${tokensPerDay} (the endless stream's one call ${outcome.endlessCallTokens}; the rest ${tokensBesideEndless}, their largest call ${largestCall})`,
        `  attacker bytes read   ${mebibytes(outcome.bytesReceived)}; endless model streamed ${mebibytes(endless.bytesStreamed())}, evil MCP wrote ${mebibytes(evil.hugeBytesWritten())} of huge answers and saw ${JSON.stringify(evil.requestsByMethod())}; silent sink got ${sink.received()} webhooks`,
        `  attacker statuses     ${describeStatuses({ ...configStatuses, ...outcome.statuses })}`,
      ].join('\n'),
    );

    expect(service.child.nodeChildProcess.exitCode).toBeNull();
    expect(root).toBe(200);
    expect(Object.keys(loaded.statuses)).toEqual(['200']);
    expect(samples.worstMs).toBeLessThan(1_000);
    expect(samples.peakRssBytes - samples.firstRssBytes).toBeLessThan(2 ** 30);
    // Everything the attacker spent, the endless call included: within one model call's worth of the budget.
    expect(attackerTokens).toBeLessThanOrEqual(tokensPerDay + largestCall);
    // Generous for a loaded 2-core machine: within 10x of unloaded, or a floor.
    expect(figures.loadedP99).toBeLessThanOrEqual(Math.max(10 * figures.quietP99, 2_000));
    expect(figures.loadedWebhook).toBeLessThanOrEqual(Math.max(10 * figures.quietWebhook, 5_000));
  });
});

function describeStatuses(statuses: AttackStatuses): string {
  return Object.entries(statuses)
    .map(([attack, byStatus]) => `${attack} ${Object.entries(byStatus).map(([status, count]) => `${count}x${status === '0' ? 'none' : status}`).join('/')}`)
    .join('; ');
}
