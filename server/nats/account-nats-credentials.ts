import { createHmac } from 'node:crypto';
import { subjectRoot } from './nats-protocol.js';

/** Account and agent ids become single subject tokens: no dots, wildcards or whitespace. */
const subjectTokenPattern = /^[A-Za-z0-9_-]{1,64}$/;

/** The smallest stage secret accepted: the passwords are only as strong as it is. */
export const minimumStageSecretLength = 32;

/** What an account needs to talk to the service over NATS. Nothing here is stored: it is derived again on demand. */
export interface AccountNatsCredentials {
  accountId: string;
  /** The NATS user name: `account-<accountId>`, which can never collide with the service user. */
  user: string;
  /** HMAC-SHA256(stage secret, account id), base64url: 43 characters, 256 bits. */
  password: string;
  /** Pass as the client's `inboxPrefix` option: the account may only subscribe under `<inboxPrefix>.>`. */
  inboxPrefix: string;
  /** `harness.v1.<accountId>`: the account may publish to anything below it. */
  subjectPrefix: string;
  /** `harness.v1.<accountId>.<agentId>.chat`: where the account sends chat requests. */
  chatSubject(agentId: string): string;
}

/** Throws unless `value` can be one subject token (and so can never widen a permission). */
export function assertSubjectToken(name: string, value: string): void {
  if (!subjectTokenPattern.test(value)) {
    throw new Error(`${name} must be 1-64 characters of A-Z a-z 0-9 _ - to be used in a NATS subject (got ${JSON.stringify(value)}).`);
  }
}

/** The inbox prefix of an account: `_INBOX.<accountId>`. */
export function accountInboxPrefix(accountId: string): string {
  assertSubjectToken('accountId', accountId);
  return `_INBOX.${accountId}`;
}

/** The subject prefix an account may publish under: `harness.v1.<accountId>`. */
export function accountSubjectPrefix(accountId: string): string {
  assertSubjectToken('accountId', accountId);
  return `${subjectRoot}.${accountId}`;
}

/** The NATS user name of an account. */
export function accountNatsUser(accountId: string): string {
  assertSubjectToken('accountId', accountId);
  return `account-${accountId}`;
}

/**
 * True when `replySubject` lies in the account's own inbox. The gateway must check this
 * before it publishes to a request's reply subject: the server lets an account put any
 * reply subject on a request, and only this check stops it from steering the service's
 * answers into another account's inbox.
 */
export function isAccountInbox(accountId: string, replySubject: string): boolean {
  return replySubject.startsWith(`${accountInboxPrefix(accountId)}.`) && !/[\s*>]/.test(replySubject);
}

/**
 * Derives an account's NATS credentials from the stage secret: the same inputs always give
 * the same password, so the service hands them out and writes the server config without
 * storing anything. Changing the stage secret changes every account's password.
 */
export function accountNatsCredentials(stageSecret: string, accountId: string): AccountNatsCredentials {
  if (stageSecret.length < minimumStageSecretLength) {
    throw new Error(`The NATS stage secret must be at least ${minimumStageSecretLength} characters long.`);
  }
  const subjectPrefix = accountSubjectPrefix(accountId);
  const password = createHmac('sha256', stageSecret).update(`harness-nats-account-password-v1:${accountId}`).digest('base64url');
  return {
    accountId,
    user: accountNatsUser(accountId),
    password,
    inboxPrefix: accountInboxPrefix(accountId),
    subjectPrefix,
    chatSubject(agentId: string): string {
      assertSubjectToken('agentId', agentId);
      return `${subjectPrefix}.${agentId}.chat`;
    },
  };
}
