import { requestJson } from './json-request.js';

/** Where the attacker's hostile peers listen. */
export interface AttackerPeers {
  /** The fixture model (ordinary answers, approvals). */
  modelBaseURL: string;
  /** A fixture model that streams slowly: the turn whose stream is resumed 300 times. */
  slowModelBaseURL: string;
  modelKey: string;
  searchKey: string;
  endlessModelBaseURL: string;
  evilMcpUrl(path: string): string;
  silentSinkUrl: string;
}

/** What each attack got from the service, by HTTP status (0: no answer before the flood ended). */
export type AttackStatuses = Record<string, Record<number, number>>;

export interface AttackOutcome {
  statuses: AttackStatuses;
  /** Bytes the attacker's 300 resumes and its endless stream received. */
  bytesReceived: number;
  /** The tokens the endless stream's `finish` chunk reported (0 when it never finished). */
  endlessCallTokens: number;
}

export const fanOutServers = 300;
export const resumeCount = 300;
export const asyncCount = 40;
const approvalRounds = 30;

const sleep = (milliseconds: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, milliseconds);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });

/** Writes the attacker's agents; gives each PUT's status (a refused config is a defence, not a failure). */
export async function configureAttacker(accountUrl: string, secret: string, peers: AttackerPeers): Promise<AttackStatuses> {
  const provider = (baseURL: string) => ({ openai: { apiKey: peers.modelKey, baseURL, model: 'fixture', api: 'chat' } });
  const fanOut = Object.fromEntries(Array.from({ length: fanOutServers }, (_unused, index) => [`s${index}`, { url: peers.evilMcpUrl(`fan/${index}`), tools: { deny: ['regex', 'huge', 'wait'] } }]));
  const agents: Record<string, Record<string, unknown>> = {
    regex: { provider: provider(peers.modelBaseURL), mcp: { evil: { url: peers.evilMcpUrl('regex') } } },
    huge: { provider: provider(peers.modelBaseURL), mcp: { evil: { url: peers.evilMcpUrl('huge') } } },
    fanout: { provider: provider(peers.modelBaseURL), mcp: fanOut },
    hooked: { provider: provider(peers.modelBaseURL), webhooks: { completion: { url: peers.silentSinkUrl, secret: 'whsec-attacker-0123456789abcdef' } } },
    streamer: { provider: provider(peers.slowModelBaseURL) },
    endless: { provider: { openai: { apiKey: peers.modelKey, baseURL: peers.endlessModelBaseURL, model: 'endless', api: 'chat' } } },
    spender: { provider: provider(peers.modelBaseURL), tools: { alphaSearch: { apiKey: peers.searchKey, needsApproval: true } } },
  };
  const statuses: AttackStatuses = {};
  for (const [agentId, config] of Object.entries(agents)) {
    const answer = await requestJson(`${accountUrl}/accounts/me/agents/${agentId}`, { method: 'PUT', secret, body: { config } });
    statuses[`config ${agentId}`] = { [answer.status]: 1 };
  }
  return statuses;
}

/**
 * Runs every attack at once from one account until `signal` aborts (each is bounded in count
 * as well): MCP output-schema and huge-answer bombs, a 300-server fan-out, 40 `/async` requests
 * whose completion webhook never answers, 300 resumes of one running turn, a model that streams
 * forever, and a turn that keeps asking for approvals past the daily token budget.
 */
export async function runAttacks(agentUrl: string, secret: string, signal: AbortSignal): Promise<AttackOutcome> {
  const outcome: AttackOutcome = { statuses: {}, bytesReceived: 0, endlessCallTokens: 0 };
  const count = (attack: string, status: number) => {
    const byStatus = (outcome.statuses[attack] ??= {});
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  };
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${secret}` };
  const post = async (attack: string, path: string, body: unknown, accept = 'application/json'): Promise<Response | undefined> => {
    try {
      const response = await fetch(`${agentUrl}${path}`, { method: 'POST', headers: { ...headers, accept }, body: JSON.stringify(body), signal });
      count(attack, response.status);
      return response;
    } catch {
      count(attack, 0);
      return undefined;
    }
  };
  const chat = async (attack: string, agentId: string, conversationKey: string, message: unknown) => {
    const response = await post(attack, `/agents/${agentId}/chat`, { conversationKey, message });
    return response ? ((await response.json().catch(() => ({}))) as Record<string, unknown>) : undefined;
  };
  /** Reads a body to its end (or the flood's); gives its last 64 KiB. */
  const drain = async (response: Response | undefined): Promise<string> => {
    let tail = '';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response?.body ?? []) {
        outcome.bytesReceived += (chunk as Uint8Array).byteLength;
        tail = (tail + decoder.decode(chunk as Uint8Array, { stream: true })).slice(-64 * 1024);
      }
    } catch {
      // Aborted when the flood ends.
    }
    return tail;
  };

  const attacks = [
    // (a) an output schema whose pattern backtracks, and (b) a 100 MB tool answer.
    (async () => {
      // Before the approvals spend the budget (a spent budget refuses this turn).
      await sleep(1_000, signal);
      await chat('mcp regex', 'regex', 'regex', 'call evil__regex {}');
    })(),
    chat('mcp huge', 'huge', 'huge', 'call evil__huge {}'),
    // (c) 300 MCP servers in one config, three turns at once.
    ...Array.from({ length: 3 }, (_unused, index) => chat('mcp fan-out', 'fanout', `fan-${index}`, 'hello')),
    // (d) 40 /async requests whose completion webhook never answers.
    ...Array.from({ length: asyncCount }, async (_unused, index) => {
      const response = await post('async to silent webhook', '/agents/hooked/async', { conversationKey: `hook-${index}`, message: `hello ${index}` });
      await response?.arrayBuffer().catch(() => undefined);
    }),
    // (e) 300 concurrent resumes of one running turn.
    (async () => {
      const turn = await post('slow turn (SSE)', '/agents/streamer/chat', { conversationKey: 'resumed', message: 'long: 1200' }, 'text/event-stream');
      const reading = drain(turn);
      await sleep(500, signal);
      await Promise.all(
        Array.from({ length: resumeCount }, async () => {
          try {
            const response = await fetch(`${agentUrl}/agents/streamer/conversations/resumed/stream`, { headers, signal });
            count('resume', response.status);
            await drain(response);
          } catch {
            count('resume', 0);
          }
        }),
      );
      await reading;
    })(),
    // (f) a model that streams forever.
    (async () => {
      const tail = await drain(await post('endless model (SSE)', '/agents/endless/chat', { conversationKey: 'endless', message: 'tell me everything' }, 'text/event-stream'));
      const finish = /^data: (\{"type":"finish".*)$/m.exec(tail)?.[1];
      outcome.endlessCallTokens = finish ? Number((JSON.parse(finish) as { messageMetadata?: { usage?: { totalTokens?: number } } }).messageMetadata?.usage?.totalTokens ?? 0) : 0;
    })(),
    // (g) a turn that keeps asking for approvals, each answer a model call with a large input.
    (async () => {
      // Late enough that the other attacks ran before the budget is spent (it refuses new turns).
      await sleep(12_000, signal);
      const script = Array.from({ length: approvalRounds }, (_unused, index) => `${index === 0 ? '' : 'then '}search: spend ${index}`);
      let answer = await chat('approval turn', 'spender', 'spend', ['spend '.repeat(2_000), ...script].join('\n'));
      for (let round = 0; round < approvalRounds && !signal.aborted; round += 1) {
        const pending = answer?.pendingApprovals as { approvalId: string }[] | undefined;
        if (!pending?.length) break;
        answer = await chat('approval answer', 'spender', 'spend', { role: 'tool', content: pending.map(({ approvalId }) => ({ type: 'tool-approval-response', approvalId, approved: true })) });
      }
    })(),
  ];
  await Promise.all(attacks);
  return outcome;
}

/** The attacker's conversations that hold model calls (agent id, conversation key). */
const attackerConversations: [string, string][] = [
  ['regex', 'regex'],
  ['huge', 'huge'],
  ...Array.from({ length: 3 }, (_unused, index): [string, string] => ['fanout', `fan-${index}`]),
  ...Array.from({ length: asyncCount }, (_unused, index): [string, string] => ['hooked', `hook-${index}`]),
  ['streamer', 'resumed'],
  ['endless', 'endless'],
  ['spender', 'spend'],
];

/**
 * The most tokens one model call of the attacker used, as the service stored it (each stored
 * assistant message carries its call's usage): how far a budget may be overrun.
 */
export async function largestStoredCall(agentUrl: string, secret: string): Promise<number> {
  let largest = 0;
  for (const [agentId, conversationKey] of attackerConversations) {
    const answer = await requestJson<{ messages?: { usage?: { totalTokens?: number } }[] }>(`${agentUrl}/agents/${agentId}/conversations/${conversationKey}`, { secret });
    for (const message of answer.body.messages ?? []) largest = Math.max(largest, message.usage?.totalTokens ?? 0);
  }
  return largest;
}

/** The account's tokens of every day it has rows for (a test's account has only today's). */
export async function accountTokens(accountUrl: string, secret: string): Promise<number> {
  const usage = (await requestJson<{ usage?: { totalTokens: number }[] }>(`${accountUrl}/accounts/me/usage`, { secret })).body.usage ?? [];
  return usage.reduce((sum, row) => sum + row.totalTokens, 0);
}

/** Waits (up to `timeoutMs`) until the account's recorded tokens stop changing for 2 s: its last runs have ended. */
export async function tokensOnceSettled(accountUrl: string, secret: string, timeoutMs = 20_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = await accountTokens(accountUrl, secret);
  for (let unchanged = 0; unchanged < 4 && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = await accountTokens(accountUrl, secret);
    unchanged = now === last ? unchanged + 1 : 0;
    last = now;
  }
  return last;
}
