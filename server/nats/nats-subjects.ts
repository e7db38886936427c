import { accountSubjectPrefix, assertSubjectToken } from './account-nats-credentials.js';
import { replaySubjectRoot, subjectRoot } from './nats-protocol.js';

/**
 * The subjects of the NATS chat transport as the service builds and reads them (docs/nats.md):
 * requests on `harness.v1.<accountId>.<agentId>.chat` and `.replay`, stored chunks on
 * `harness.replay.<accountId>.<agentId>.<base64url(conversationKey)>.<turnId>`. What clients
 * share with the service is in `nats-protocol.ts`.
 */

/** What a request subject names. */
export interface RequestSubject {
  accountId: string;
  agentId: string;
  kind: 'chat' | 'replay';
}

/** Where the gateway listens: every account's chat and replay subjects. */
export const chatRequestWildcard = `${subjectRoot}.*.*.chat`;
export const replayRequestWildcard = `${subjectRoot}.*.*.replay`;

/** The queue group of the gateway, so several replicas share the requests. */
export const gatewayQueueGroup = 'harness-gateway';

const tokenPattern = /^[A-Za-z0-9_-]{1,64}$/;

/** Parses `harness.v1.<accountId>.<agentId>.(chat|replay)`; undefined for anything else. */
export function parseRequestSubject(subject: string): RequestSubject | undefined {
  const parts = subject.split('.');
  if (parts.length !== 5 || `${parts[0]}.${parts[1]}` !== subjectRoot) return undefined;
  const [, , accountId, agentId, kind] = parts as [string, string, string, string, string];
  if (!tokenPattern.test(accountId) || !tokenPattern.test(agentId)) return undefined;
  if (kind !== 'chat' && kind !== 'replay') return undefined;
  return { accountId, agentId, kind };
}

/** `harness.v1.<accountId>.<agentId>.chat` */
export function chatSubject(accountId: string, agentId: string): string {
  assertSubjectToken('agentId', agentId);
  return `${accountSubjectPrefix(accountId)}.${agentId}.chat`;
}

/** `harness.v1.<accountId>.<agentId>.replay` */
export function replayRequestSubject(accountId: string, agentId: string): string {
  assertSubjectToken('agentId', agentId);
  return `${accountSubjectPrefix(accountId)}.${agentId}.replay`;
}

/** A conversation key as one subject token: user input goes into a subject only base64url-encoded, so it can hold no `.`, `*` or `>`. */
export function conversationToken(conversationKey: string): string {
  return Buffer.from(conversationKey, 'utf8').toString('base64url');
}

/** The stored chunks of one conversation: `harness.replay.<accountId>.<agentId>.<conversation>`, to which `.<turnId>` is added. */
export function conversationReplaySubject(accountId: string, agentId: string, conversationKey: string): string {
  assertSubjectToken('accountId', accountId);
  assertSubjectToken('agentId', agentId);
  return `${replaySubjectRoot}.${accountId}.${agentId}.${conversationToken(conversationKey)}`;
}

/** The subject one turn's chunks are stored on. */
export function turnReplaySubject(accountId: string, agentId: string, conversationKey: string, turnId: string): string {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(turnId)) throw new Error(`turnId must be one subject token (got ${JSON.stringify(turnId)}).`);
  return `${conversationReplaySubject(accountId, agentId, conversationKey)}.${turnId}`;
}
