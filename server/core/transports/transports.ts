/**
 * What each way into a turn means, in one table: whether a person waits on it, how its
 * approvals are answered, where its result (and its continuation's, after async tools) goes,
 * whether it can carry external-dispatch tools, and its default busy mode. Every rule that
 * depends on the transport reads this table; docs/architecture.md ("Transports") is rendered
 * from it (`transportsMarkdown`) and a test keeps the two equal.
 *
 * It imports nothing from the core, so every folder (turns/, runs/, agent-config/, tools/...)
 * can read it without an import cycle.
 */

/** Where a turn came from; decides approval and async behaviour. */
export const transportKinds = ['sse', 'json', 'async', 'nats', 'channel', 'cron'] as const;
export type TransportKind = (typeof transportKinds)[number];

/**
 * Where a continuation's output goes once the async tools its turn waited for have settled.
 * `status-row` only: no delivery of its own is registered for the transport.
 */
export type ContinuationTarget = 'chunk-log' | 'reply-subject' | 'chat-reply' | 'status-row';

/** One transport's meaning. */
export interface TransportMeaning {
  /** How a turn arrives on it. */
  entersBy: string;
  /** A person waits on the turn: it takes one of the account's concurrent-turn slots. */
  interactive: boolean;
  approvals: {
    /** `ask`: a tool that needs approval stops the turn (`awaiting_approval`); `deny`: the turn denies it itself, tells the model, and goes on. */
    policy: 'ask' | 'deny';
    /** How the open approvals are answered. */
    answeredBy: string;
  };
  /** Where the turn's result goes, and its continuation's. */
  resultGoesTo: string;
  /** Where a continuation's output is delivered (the status row of the run is written in every case). */
  continuationGoesTo: ContinuationTarget;
  /** Whether a turn may use `external-dispatch` tools: false where the caller cannot wait for their continuation. */
  externalDispatch: boolean;
  /** The busy mode when neither the request nor the agent chose one (docs/busy-conversations.md). */
  defaultBusy: 'queue' | 'collect';
}

const nextChatRequest = 'the next chat request, whose message is the tool message of approval answers';
const deniedByTheTurn = 'nobody: the turn denies them itself and tells the model why (`data-approval-denied`)';

export const transports = {
  sse: {
    entersBy: '`POST /agents/{agentId}/chat` with `Accept: text/event-stream` (or an AI SDK transport body)',
    interactive: true,
    approvals: { policy: 'ask', answeredBy: `${nextChatRequest}; its stream goes on in the answered assistant message` },
    resultGoesTo: 'the SSE response; a continuation to the chunk log (`GET .../conversations/{conversationKey}/stream`)',
    continuationGoesTo: 'chunk-log',
    // The SSE request cannot wait for a worker: its continuation has no open connection.
    externalDispatch: false,
    defaultBusy: 'queue',
  },
  json: {
    entersBy: '`POST /agents/{agentId}/chat` answered as JSON; also `run_subagent` and the account MCP server',
    interactive: true,
    approvals: { policy: 'ask', answeredBy: nextChatRequest },
    resultGoesTo: 'the JSON answer; a turn that waits for async tools answers `eventId` and `statusUrl`, and its continuation goes to that status row',
    continuationGoesTo: 'status-row',
    externalDispatch: true,
    defaultBusy: 'queue',
  },
  async: {
    entersBy: '`POST /agents/{agentId}/async` (202, then the background worker)',
    interactive: false,
    approvals: { policy: 'ask', answeredBy: 'a new `POST /agents/{agentId}/async` whose message is the tool message of approval answers' },
    resultGoesTo: 'the status row (`GET /status/{eventId}`) and the completion webhook',
    continuationGoesTo: 'status-row',
    externalDispatch: true,
    defaultBusy: 'queue',
  },
  nats: {
    entersBy: 'a chat request on `harness.v1.<accountId>.<agentId>.chat`',
    interactive: true,
    approvals: { policy: 'ask', answeredBy: `${nextChatRequest}, on NATS` },
    resultGoesTo: "the request's reply subject (chunks); a continuation to the same reply subject",
    continuationGoesTo: 'reply-subject',
    externalDispatch: true,
    defaultBusy: 'queue',
  },
  channel: {
    entersBy: 'a channel webhook (`/webhooks/...`), run on the channel worker',
    interactive: false,
    approvals: { policy: 'deny', answeredBy: `${deniedByTheTurn}; the chat gets a notice` },
    resultGoesTo: 'a reply posted to the chat; a continuation posts its reply too',
    continuationGoesTo: 'chat-reply',
    externalDispatch: true,
    // A chat user's burst of lines is one question.
    defaultBusy: 'collect',
  },
  cron: {
    entersBy: 'a cron job firing, run as an `/async` request',
    interactive: false,
    approvals: { policy: 'deny', answeredBy: deniedByTheTurn },
    resultGoesTo: "the run's status row, the job's run history and the completion webhook",
    continuationGoesTo: 'status-row',
    externalDispatch: true,
    defaultBusy: 'queue',
  },
} as const satisfies Record<TransportKind, TransportMeaning>;

/** The transports whose continuations have a delivery of their own (the chunk log, the reply subject, the chat); the others' go to the status row only. */
export type DeliveredTransport = { [Kind in TransportKind]: (typeof transports)[Kind]['continuationGoesTo'] extends 'status-row' ? never : Kind }[TransportKind];

/** `transport` when its continuations have a delivery of their own, else undefined. */
export function deliveredTransport(transport: TransportKind): DeliveredTransport | undefined {
  return transports[transport].continuationGoesTo === 'status-row' ? undefined : (transport as DeliveredTransport);
}

/** The meaning of one transport. */
export function transportMeaning(transport: TransportKind): TransportMeaning {
  return transports[transport];
}

const cell = (text: string) => text.replaceAll('|', '\\|');

/** The table as the Markdown docs/architecture.md shows under "Transports". */
export function transportsMarkdown(): string {
  const header = '| transport | enters by | interactive | approvals | approvals answered by | result goes to | external-dispatch tools | default busy |';
  const rule = '|---|---|---|---|---|---|---|---|';
  const rows = transportKinds.map((kind) => {
    const meaning: TransportMeaning = transports[kind];
    return `| \`${kind}\` | ${cell(meaning.entersBy)} | ${meaning.interactive ? 'yes' : 'no'} | \`${meaning.approvals.policy}\` | ${cell(meaning.approvals.answeredBy)} | ${cell(meaning.resultGoesTo)} | ${meaning.externalDispatch ? 'yes' : 'refused (400)'} | \`${meaning.defaultBusy}\` |`;
  });
  return [header, rule, ...rows].join('\n');
}
