import { join } from 'node:path';
import { accountInboxPrefix, accountSubjectPrefix } from './account-nats-credentials.js';

/** The name of the user the service itself connects as (a user of the harness account with every permission). */
export const serviceNatsUser = 'harness-service';

/** Subjects no account may touch even if its allow lists were widened by mistake: JetStream, KV, object store, system. */
export const reservedSubjects = ['$JS.>', '$KV.>', '$O.>', '$SYS.>'];

/** The decentralized-authentication part of the config: the operator and the preloaded account JWTs (all public). */
export interface NatsOperatorConfig {
  operatorJwt: string;
  systemAccountPublicKey: string;
  /** Account public key -> account JWT, preloaded into the in-memory resolver. */
  accountJwts: Record<string, string>;
}

/** One server of a local cluster: its name, its route port, and the route URLs of the others. */
export interface NatsClusterConfig {
  /** The cluster's name, the same on every server. */
  name: string;
  /** The route port, bound on 127.0.0.1. */
  port: number;
  /** `nats-route://127.0.0.1:<port>` of every server (its own is ignored by nats-server). */
  routes: string[];
}

/** The publish and subscribe permissions of a NATS user, as nats-server spells them. */
export interface NatsPermissions {
  publish: { allow: string[]; deny: string[] };
  subscribe: { allow: string[]; deny: string[] };
}

export interface NatsServerConfigInput {
  /** Client port, bound on 127.0.0.1 only. */
  port: number;
  /** WebSocket port, bound on 127.0.0.1 only, without TLS (loopback; put a TLS proxy in front for anything else). */
  websocketPort: number;
  /** The service's data folder; JetStream keeps its store in `<dataDir>/nats/jetstream` unless `storeDir` says otherwise. */
  dataDir: string;
  /** JetStream's folder; default `jetStreamStoreDir(dataDir)`. Each server of a cluster needs its own. */
  storeDir?: string;
  /** The server's name (required by clustered JetStream, unique in the cluster). */
  serverName?: string;
  cluster?: NatsClusterConfig;
  authority: NatsOperatorConfig;
  /** Upper bound of JetStream memory storage; default 64 MiB. */
  jetStreamMaxMemoryBytes?: number;
  /** Upper bound of JetStream file storage; default 1 GiB. */
  jetStreamMaxFileBytes?: number;
}

export const defaultJetStreamMaxMemoryBytes = 64 * 1024 * 1024;
export const defaultJetStreamMaxFileBytes = 1024 * 1024 * 1024;

/** Where JetStream keeps its files under a data folder. */
export function jetStreamStoreDir(dataDir: string): string {
  return join(dataDir, 'nats', 'jetstream');
}

/**
 * An account may publish only below `harness.v1.<accountId>` (its chat and replay
 * subjects) and subscribe only below `_INBOX.<accountId>` (its inbox). Without
 * `allow_responses` it cannot answer requests either, so it never publishes into anyone
 * else's reply subject.
 */
export function accountNatsPermissions(accountId: string): NatsPermissions {
  return {
    publish: { allow: [`${accountSubjectPrefix(accountId)}.>`], deny: reservedSubjects },
    subscribe: { allow: [`${accountInboxPrefix(accountId)}.>`], deny: reservedSubjects },
  };
}

/** A quoted string in nats-server's config syntax (JSON string escapes are accepted; `$` inside quotes is literal). */
function quoted(value: string): string {
  return JSON.stringify(value);
}

function assertPort(name: string, port: number): void {
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`${name} must be a port from 1 to 65535 (got ${port}).`);
}

const publicKeyPattern = /^[AO][A-Z2-7]{55}$/;
const jwtPattern = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

function assertAuthority(authority: NatsOperatorConfig): void {
  const keys = [authority.systemAccountPublicKey, ...Object.keys(authority.accountJwts)];
  if (!keys.every((key) => publicKeyPattern.test(key))) throw new Error('NATS account keys must be public nkeys: the config file never holds a seed.');
  if (![authority.operatorJwt, ...Object.values(authority.accountJwts)].every((jwt) => jwtPattern.test(jwt))) throw new Error('NATS operator and account claims must be JWTs.');
}

function renderCluster(cluster: NatsClusterConfig): string[] {
  assertPort('cluster.port', cluster.port);
  return [
    'cluster {',
    `  name: ${quoted(cluster.name)}`,
    `  listen: ${quoted(`127.0.0.1:${cluster.port}`)}`,
    `  routes: [${cluster.routes.map(quoted).join(', ')}]`,
    '}',
    '',
  ];
}

/**
 * Renders a nats-server 2.9 configuration: loopback listeners (client, WebSocket, routes of a
 * local cluster), no HTTP monitoring, bounded JetStream, and decentralized JWT authentication:
 * the operator JWT and the account JWTs preloaded into the in-memory resolver. Users are not
 * listed: each presents a JWT signed by the harness account key, so creating an account never
 * rewrites or reloads this file. The file holds no secret (JWTs and public keys only).
 */
export function renderNatsServerConfig(input: NatsServerConfigInput): string {
  assertPort('port', input.port);
  assertPort('websocketPort', input.websocketPort);
  assertAuthority(input.authority);
  const preload = Object.entries(input.authority.accountJwts).map(([key, jwt]) => `  ${key}: ${quoted(jwt)}`);
  return [
    '# Generated by harness (server/nats/nats-server-config.ts) at every start: edits are lost.',
    '# Decentralized JWT authentication: public keys and JWTs only, no secret.',
    ...(input.serverName === undefined ? [] : [`server_name: ${quoted(input.serverName)}`]),
    `listen: ${quoted(`127.0.0.1:${input.port}`)}`,
    '',
    'websocket {',
    `  listen: ${quoted(`127.0.0.1:${input.websocketPort}`)}`,
    '  no_tls: true',
    '}',
    '',
    ...(input.cluster === undefined ? [] : renderCluster(input.cluster)),
    'jetstream {',
    `  store_dir: ${quoted(input.storeDir ?? jetStreamStoreDir(input.dataDir))}`,
    `  max_memory_store: ${input.jetStreamMaxMemoryBytes ?? defaultJetStreamMaxMemoryBytes}`,
    `  max_file_store: ${input.jetStreamMaxFileBytes ?? defaultJetStreamMaxFileBytes}`,
    '}',
    '',
    `operator: ${quoted(input.authority.operatorJwt)}`,
    `system_account: ${quoted(input.authority.systemAccountPublicKey)}`,
    'resolver: MEMORY',
    'resolver_preload: {',
    ...preload,
    '}',
    '',
  ].join('\n');
}
