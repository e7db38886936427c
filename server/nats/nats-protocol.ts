/**
 * The NATS chat protocol as both ends see it: the service's gateway and any client (the
 * CLI's `harness chat --transport nats`, a browser). Subjects, headers, the request and
 * credential shapes, and which chunk ends a stream. Pure: no connection, no service state,
 * so a client can import it without pulling in the service.
 *
 * A client sends `{conversationKey, message}` (or the AI SDK's `{id, messages}`) to
 * `harness.v1.<accountId>.<agentId>.chat` with `Authorization: Bearer <account secret>` and a
 * reply subject in its own inbox; the chunks of the UI message stream arrive there, one JSON
 * chunk per message. After a lost connection it asks `…<agentId>.replay` for every chunk
 * after the last sequence it saw.
 */

/** The version prefix of every request subject. */
export const subjectRoot = 'harness.v1';

/** The subjects the chunk stream keeps; only the service can publish there (accounts may publish only below `harness.v1.<accountId>`). */
export const replaySubjectRoot = 'harness.replay';

/** Request header: `Bearer <account secret>`. */
export const authorizationHeader = 'Authorization';
/** Reply header on every stored chunk: its sequence in the chunk stream (increasing, not contiguous). */
export const sequenceHeader = 'Harness-Sequence';
/** Reply header on every stored chunk: the turn (or continuation) it belongs to. */
export const turnIdHeader = 'Harness-Turn-Id';
/** Reply header of the empty message that ends a replay answer: the last sequence it sent. */
export const replayEndHeader = 'Harness-Replay-End';

/** Stands for the agent id in the subject templates of `NatsCredentialsView`. */
export const agentIdPlaceholder = '{agentId}';

/** A subject template of `NatsCredentialsView` with the agent filled in. */
export function subjectForAgent(template: string, agentId: string): string {
  return template.replace(agentIdPlaceholder, agentId);
}

/**
 * How clients authenticate to the NATS servers, as `GET /accounts/me/nats` says:
 * - `jwt`: the servers the service runs itself (or `NATS_AUTH=jwt`): `jwt` is a user JWT the
 *   service signed for the account and `password` its nkey seed;
 * - `password`: an operator's server with a users list (the service connects as a user given in
 *   `NATS_URL`): `user` and `password` are the account's derived credentials, which the operator
 *   configures on the servers (docs/scale-out.md);
 * - `token`: the servers take a token (the service connects with `NATS_TOKEN`): the token is the
 *   operator's to hand out, the service does not (it opens every subject); `user` and `password` are null;
 * - `none`: the servers ask for no credentials: connect with none;
 * - `operator`: the servers take users their operator signs (nsc): the operator hands them out.
 */
export type NatsAuthenticationMode = 'jwt' | 'password' | 'token' | 'none' | 'operator';

/** What `GET /accounts/me/nats` hands an account: everything a client needs to chat over NATS. */
export interface NatsCredentialsView {
  /** How to authenticate: which of the fields below apply, or whose credentials are needed instead. */
  authentication: NatsAuthenticationMode;
  /** The TCP URL (`nats://`), when the service knows one. */
  url: string | null;
  /** The WebSocket URL (`ws://`), what a browser (and `harness chat --transport nats`) uses. */
  websocketUrl: string | null;
  /** `account-<accountId>` (`jwt`, `password`); null when the service has no credentials to give. */
  user: string | null;
  /**
   * The secret half of the credentials. With `jwt` (the servers the service runs itself,
   * decentralized authentication): the user's nkey seed, which signs the server's nonce.
   * With `password` (an operator's users list): the password of user `user`. Otherwise null.
   */
  password: string | null;
  /** The user JWT, signed by the service's account key; null when the service does not sign users. */
  jwt: string | null;
  /** `jwt` and the seed as a standard `.creds` file (for `nats --creds`); null without `jwt`. */
  creds: string | null;
  /** Pass as the client's `inboxPrefix`: the account may only subscribe below it, and the service answers only there. */
  inboxPrefix: string;
  /** `harness.v1.<accountId>.{agentId}.chat`: replace `{agentId}`. */
  chatSubject: string;
  /** `harness.v1.<accountId>.{agentId}.replay`: replace `{agentId}`. */
  replaySubject: string;
  /** `_INBOX.<accountId>.>`: where replies must go. */
  replySubject: string;
}

/**
 * How a client authenticates with a credentials view: a JWT and its seed, or user and password;
 * on servers that take a token (`authentication: "token"`), the operator's `token` when the
 * client has one; otherwise nothing.
 */
export function natsAuthenticationOf(
  view: Pick<NatsCredentialsView, 'user' | 'password' | 'jwt'>,
  token?: string,
): { jwt: string; seed: string } | { user: string; password: string } | { token: string } | Record<string, never> {
  if (view.jwt !== null && view.password !== null) return { jwt: view.jwt, seed: view.password };
  if (view.user !== null && view.password !== null) return { user: view.user, password: view.password };
  return token === undefined || token === '' ? {} : { token };
}

/** The body of a replay request: the chunks of a conversation after `afterSequence` (0: all that are kept). */
export interface NatsReplayRequest {
  conversationKey: string;
  /** Only this turn's chunks; default: every turn of the conversation. */
  turnId?: string;
  afterSequence: number;
}

/**
 * A finish chunk ends a stream for good unless the turn waits for async tools: then the
 * continuation's chunks follow on the same reply subject.
 */
export function isFinalChunk(chunk: unknown): boolean {
  if (typeof chunk !== 'object' || chunk === null || (chunk as { type?: unknown }).type !== 'finish') return false;
  const status = ((chunk as { messageMetadata?: { status?: unknown } }).messageMetadata ?? {}).status;
  return status !== 'waiting_async_tools';
}
