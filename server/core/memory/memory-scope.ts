import type { TransportKind } from '../transports/transports.js';
import type { MemoryScope } from './memory-config-schema.js';

/** What a turn says about whose conversation it is: enough to name its memory scope. */
export interface MemorySubject {
  accountId: string;
  agentId: string;
  conversationKey: string;
  transport: TransportKind;
  /** The end user the caller authenticated (end-user tokens, a later issue); when set it wins over the key. */
  user?: string;
}

/**
 * The end user a conversation belongs to. A user the caller authenticated wins. A channel's
 * conversation (`telegram:<chat>`) is its own user: its prefix names the provider, which every
 * chat of that provider shares. Otherwise (a conversation started with the account secret) the
 * conversation key's prefix up to the first `:`: `alice:support-1` belongs to `alice`; a key
 * without `:` is its own user. A subagent's conversation (`alice:x/subagent/helper`) belongs to
 * the user of its caller's, which its caller passes on as `user`.
 */
export function endUserOf(subject: Pick<MemorySubject, 'conversationKey' | 'transport' | 'user'>): string {
  if (subject.user !== undefined) return subject.user;
  if (subject.transport === 'channel') return subject.conversationKey;
  const colon = subject.conversationKey.indexOf(':');
  return colon === -1 ? subject.conversationKey : subject.conversationKey.slice(0, colon);
}

/**
 * The storage partition of one scope's notes. Always within the account and the agent: a
 * `user` scope is one agent's notes about one user, never shared with another agent or
 * account. JSON keeps the parts apart whatever characters a key holds.
 */
export function memoryPartition(scope: MemoryScope, subject: MemorySubject): string {
  const owner = scope === 'agent' ? '' : scope === 'user' ? endUserOf(subject) : subject.conversationKey;
  return JSON.stringify([subject.accountId, subject.agentId, scope, owner]);
}
