import { hkdfSync } from 'node:crypto';
import { encodeAccount, encodeOperator, encodeUser, fmtCreds, type Permission } from '@nats-io/jwt';
import { createUser, fromSeed, Prefix, type KeyPair } from '@nats-io/nkeys';
// The seed codec is not re-exported by the package entry; deriving keys from a secret needs it.
import { Codec } from '@nats-io/nkeys/lib/codec.js';
import { accountNatsUser, minimumStageSecretLength } from './account-nats-credentials.js';
import { accountNatsPermissions } from './nats-server-config.js';

/**
 * NATS decentralized authentication for the servers the service runs itself: an operator,
 * a system account, and one account (`harness`) that holds the service and every harness
 * account as users. The server config carries only the operator's and the two accounts'
 * JWTs (public), so it never changes when a harness account is created; a user proves who it
 * is with a user JWT signed by the account key plus its own nkey seed.
 *
 * The three keys are derived from the stage secret (HKDF-SHA256): every replica with the same
 * `HARNESS_ADMIN_SECRET` signs credentials the whole cluster accepts, and nothing is stored.
 */
export interface NatsAuthority {
  operatorPublicKey: string;
  accountPublicKey: string;
  systemAccountPublicKey: string;
  operatorJwt: string;
  /** Account public key -> account JWT: the harness account and the system account. */
  accountJwts: Record<string, string>;
  /** Signs a user of the harness account with these permissions (none given: every permission). */
  issueUser(name: string, permissions?: { publish: Permission; subscribe: Permission }): Promise<NatsUserCredentials>;
}

/** A signed NATS user: the JWT, its nkey seed (the secret half), and both as a `.creds` file. */
export interface NatsUserCredentials {
  name: string;
  jwt: string;
  /** The user's nkey seed (`SU…`): whoever holds it and the JWT is this user. */
  seed: string;
  /** The standard `.creds` text (`nats --creds`, `credsAuthenticator`). */
  creds: string;
}

function derivedKey(stageSecret: string, role: 'operator' | 'account' | 'system-account', prefix: Prefix): KeyPair {
  const raw = new Uint8Array(hkdfSync('sha256', stageSecret, 'harness-nats-authority-v1', role, 32));
  return fromSeed(Codec.encodeSeed(prefix, raw));
}

/** Unlimited connections, subscriptions and JetStream for an account (the server's own caps still apply). */
const unlimitedAccount = {
  subs: -1,
  data: -1,
  payload: -1,
  imports: -1,
  exports: -1,
  wildcards: true,
  conn: -1,
  leaf: -1,
  mem_storage: -1,
  disk_storage: -1,
  streams: -1,
  consumer: -1,
};

/** The operator, accounts and their JWTs for a stage secret. */
export async function createNatsAuthority(stageSecret: string): Promise<NatsAuthority> {
  if (stageSecret.length < minimumStageSecretLength) throw new Error(`The NATS stage secret must be at least ${minimumStageSecretLength} characters long.`);
  const operator = derivedKey(stageSecret, 'operator', Prefix.Operator);
  const account = derivedKey(stageSecret, 'account', Prefix.Account);
  const system = derivedKey(stageSecret, 'system-account', Prefix.Account);
  const systemAccountPublicKey = system.getPublicKey();
  const operatorJwt = await encodeOperator('harness-operator', operator, { system_account: systemAccountPublicKey });
  const accountJwt = await encodeAccount('harness', account, { limits: unlimitedAccount }, { signer: operator });
  const systemJwt = await encodeAccount('SYS', system, {}, { signer: operator });
  return {
    operatorPublicKey: operator.getPublicKey(),
    accountPublicKey: account.getPublicKey(),
    systemAccountPublicKey,
    operatorJwt,
    accountJwts: { [account.getPublicKey()]: accountJwt, [systemAccountPublicKey]: systemJwt },
    async issueUser(name, permissions) {
      const user = createUser();
      const claims = permissions === undefined ? {} : { pub: permissions.publish, sub: permissions.subscribe };
      const jwt = await encodeUser(name, user, account, claims);
      const seed = new TextDecoder().decode(user.getSeed());
      return { name, jwt, seed, creds: new TextDecoder().decode(fmtCreds(jwt, user)) };
    },
  };
}

/** Signs the NATS user of a harness account: publish below `harness.v1.<accountId>`, subscribe below `_INBOX.<accountId>`. */
export async function issueAccountUser(authority: NatsAuthority, accountId: string): Promise<NatsUserCredentials> {
  const permissions = accountNatsPermissions(accountId);
  return authority.issueUser(accountNatsUser(accountId), permissions);
}
