import { ConditionFailedError, type TableStore, type VersionedRow, type WriteOperation } from '../storage/table-store.js';
import type { ConversationState, StoredMessage } from './conversation.js';

/** Everything of a conversation but its messages, with how many messages are stored. */
interface ConversationHead extends Omit<ConversationState, 'messages'> {
  messageCount: number;
}

/**
 * The rows of one conversation's partition: one head, and one row per message. A turn writes
 * the head and the messages it added, never the history, so its write does not grow with the
 * conversation. (`state`: the whole conversation in one row, as stored before; read, and
 * replaced by the head and message rows at the next write.)
 */
export type ConversationRow = ConversationHead | StoredMessage | ConversationState;

const headKey = 'head';
const legacyStateKey = 'state';

/** Message rows sort by key in the order they were added. */
function messageKey(index: number): string {
  return `m:${String(index).padStart(12, '0')}`;
}

function partitionOf(accountId: string, agentId: string, conversationKey: string): string {
  return JSON.stringify([accountId, agentId, conversationKey]);
}

export interface VersionedConversation {
  state: ConversationState;
  /** `null` when the conversation has never been written. */
  version: number | null;
}

function assemble(rows: VersionedRow<ConversationRow>[]): VersionedConversation | undefined {
  const head = rows.find((row) => row.key === headKey) as VersionedRow<ConversationHead> | undefined;
  if (!head) {
    const legacy = rows.find((row) => row.key === legacyStateKey) as VersionedRow<ConversationState> | undefined;
    return legacy && { state: legacy.value, version: legacy.version };
  }
  const messages = rows
    .filter((row) => row.key.startsWith('m:'))
    .sort((left, right) => (left.key < right.key ? -1 : 1))
    .slice(0, head.value.messageCount)
    .map((row) => row.value as StoredMessage);
  const { messageCount: _count, ...rest } = head.value;
  return { state: { ...rest, messages }, version: head.version };
}

/** Conversations whose messages are kept assembled in memory (most recently used). */
const cachedConversations = 256;

/**
 * Conversations, one partition each: a head row (approvals, times) and a row per message.
 * Messages are append-only, so the messages of recently used conversations are kept in
 * memory with the head version they belong to: a load then reads the head row alone, and a
 * turn's cost does not grow with the conversation. Another writer (another replica) moves the
 * head version, and the next load reads the rows again.
 */
export class ConversationsRepository {
  private readonly messagesCache = new Map<string, { version: number; messages: readonly StoredMessage[] }>();

  constructor(private readonly table: TableStore<ConversationRow>) {}

  async load(accountId: string, agentId: string, conversationKey: string, now: string): Promise<VersionedConversation> {
    const stored = await this.read(partitionOf(accountId, agentId, conversationKey));
    if (stored) return stored;
    return { state: { accountId, agentId, conversationKey, messages: [], approvals: [], createdAt: now, updatedAt: now }, version: null };
  }

  async find(accountId: string, agentId: string, conversationKey: string): Promise<ConversationState | undefined> {
    return (await this.read(partitionOf(accountId, agentId, conversationKey)))?.state;
  }

  /**
   * One read when it can be: the head row alone for a conversation whose messages are in
   * memory (its version says whether they are still current), every row otherwise. A
   * conversation this process has not seen (a new one, most often) is listed at once rather
   * than after a head read that finds nothing: on PostgreSQL that is one round trip, not two.
   */
  private async read(partition: string): Promise<VersionedConversation | undefined> {
    const cached = this.messagesCache.get(partition);
    if (cached) {
      const head = (await this.table.get(partition, headKey)) as VersionedRow<ConversationHead> | undefined;
      if (head && cached.version === head.version && cached.messages.length === head.value.messageCount) {
        this.remember(partition, cached.version, cached.messages);
        const { messageCount: _count, ...rest } = head.value;
        return { state: { ...rest, messages: [...cached.messages] }, version: head.version };
      }
    }
    const rows = await this.table.list(partition);
    const stored = assemble(rows);
    // Kept only for head and message rows: a conversation stored as one row is read whole until its next write moves it.
    if (stored && stored.version !== null && rows.some((row) => row.key === headKey)) this.remember(partition, stored.version, stored.state.messages);
    return stored && { state: { ...stored.state, messages: [...stored.state.messages] }, version: stored.version };
  }

  private remember(partition: string, version: number, messages: readonly StoredMessage[]): void {
    this.messagesCache.delete(partition);
    this.messagesCache.set(partition, { version, messages });
    if (this.messagesCache.size > cachedConversations) this.messagesCache.delete(this.messagesCache.keys().next().value as string);
  }

  /**
   * Write the state if nobody changed it since `version` was read; throws ConditionFailedError
   * otherwise. Messages are append-only: only those past the stored count are written.
   *
   * The stored count comes from the messages kept in memory for `version` when there are some:
   * the write is conditional on the head still being at `version`, and at that version exactly
   * that many messages were stored, so reading the head again would tell nothing new. Only
   * without them (a conversation loaded elsewhere, or dropped from memory) is the head read.
   */
  async save(state: ConversationState, version: number | null): Promise<number> {
    const partition = partitionOf(state.accountId, state.agentId, state.conversationKey);
    const cached = this.messagesCache.get(partition);
    const known = version === null || cached?.version === version;
    const head = known ? undefined : ((await this.table.get(partition, headKey)) as VersionedRow<ConversationHead> | undefined);
    const operations: WriteOperation<ConversationRow>[] = [];
    let storedCount = 0;
    if (known) {
      storedCount = version === null ? 0 : cached!.messages.length;
    } else if (head) {
      if (head.version !== version) throw new ConditionFailedError(this.table.name, headKey);
      storedCount = head.value.messageCount;
    } else {
      // Stored as one row before: move it to head and message rows, on the same condition.
      operations.push({ type: 'delete', key: legacyStateKey, expectedVersion: version });
    }
    if (state.messages.length < storedCount) throw new Error(`Conversation "${state.conversationKey}": messages are append-only (${state.messages.length} < ${storedCount}).`);
    const { messages, ...rest } = state;
    messages.slice(storedCount).forEach((message, offset) => operations.push({ type: 'put', key: messageKey(storedCount + offset), value: message }));
    const headExists = (known && version !== null) || head !== undefined;
    operations.push({ type: 'put', key: headKey, value: { ...rest, messageCount: messages.length }, expectedVersion: headExists ? version : null });
    const written = await this.table.write(partition, operations);
    const newVersion = written.at(-1)?.version ?? 0;
    // The cache holds its own copies of what this write added, never the caller's objects, as
    // JSON gives them back: what a read of the rows returns after a restart or on another
    // replica (no `undefined` members, no binary values), so a turn sends the model the same
    // history whether the messages came from memory or from storage. Objects of one plain
    // shape also make the AI SDK's per-message validation and conversion measurably cheaper
    // than structured clones (docs/benchmarks.md).
    const current = this.messagesCache.get(partition);
    const previous = version === null ? [] : current?.version === version ? current.messages : undefined;
    if (previous && previous.length === storedCount) {
      this.remember(partition, newVersion, [...previous, ...(JSON.parse(JSON.stringify(messages.slice(storedCount))) as StoredMessage[])]);
    } else {
      this.messagesCache.delete(partition);
    }
    return newVersion;
  }
}
