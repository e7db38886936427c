import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { deliveredTransport, transportKinds, transportMeaning, transports, transportsMarkdown, type TransportKind } from './transports.js';

const where = (rule: (kind: TransportKind) => boolean) => transportKinds.filter(rule);

describe('the transports table', () => {
  it('has one row per transport, and no other', () => {
    expect(Object.keys(transports).sort()).toEqual([...transportKinds].sort());
  });

  it('counts only the transports a person waits on (SSE, JSON, NATS) against concurrent turns', () => {
    expect(where((kind) => transportMeaning(kind).interactive)).toEqual(['sse', 'json', 'nats']);
  });

  it('asks for approvals where someone can answer, and denies them on channels and cron', () => {
    expect(where((kind) => transportMeaning(kind).approvals.policy === 'deny')).toEqual(['channel', 'cron']);
    expect(transportMeaning('async').approvals.answeredBy).toContain('POST /agents/{agentId}/async');
  });

  it('refuses external-dispatch tools on SSE only, whose request cannot wait for the continuation', () => {
    expect(where((kind) => !transportMeaning(kind).externalDispatch)).toEqual(['sse']);
  });

  it('delivers continuations to the chunk log (SSE), the reply subject (NATS) and the chat (channels); the rest only to the status row', () => {
    const targets = Object.fromEntries(transportKinds.map((kind) => [kind, transportMeaning(kind).continuationGoesTo]));
    expect(targets).toEqual({ sse: 'chunk-log', json: 'status-row', async: 'status-row', nats: 'reply-subject', channel: 'chat-reply', cron: 'status-row' });
    expect(where((kind) => deliveredTransport(kind) !== undefined)).toEqual(['sse', 'nats', 'channel']);
  });

  it('gathers a burst of lines into one turn on channels (collect) and queues elsewhere', () => {
    expect(where((kind) => transportMeaning(kind).defaultBusy === 'collect')).toEqual(['channel']);
    expect(where((kind) => transportMeaning(kind).defaultBusy === 'queue')).toEqual(['sse', 'json', 'async', 'nats', 'cron']);
  });

  it('is what docs/architecture.md shows under "Transports" (rendered by transportsMarkdown)', async () => {
    const architecture = await readFile(new URL('../../../docs/architecture.md', import.meta.url), 'utf8');
    const table = transportsMarkdown();
    expect(table.split('\n')).toHaveLength(2 + transportKinds.length);
    expect(architecture).toContain(table);
  });
});
