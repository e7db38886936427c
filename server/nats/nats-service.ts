import { hkdfSync } from 'node:crypto';
import type { HarnessCore } from '../core/composition/harness-core.js';
import type { Logger } from '../core/logger.js';
import { accountNatsCredentials } from './account-nats-credentials.js';
import type { ChunkRetentionSettings } from './chunk-retention-settings.js';
import { createNatsAuthority, issueAccountUser, type NatsAuthority } from './nats-authority.js';
import { createNatsGateway, type NatsGateway } from './nats-gateway.js';
import { createNatsLink, type NatsLink, type NatsLinkState } from './nats-link.js';
import { agentIdPlaceholder, type NatsAuthenticationMode, type NatsCredentialsView } from './nats-protocol.js';
import { NatsServerBinaryMissingError } from './nats-server-binary.js';
import { serviceNatsUser } from './nats-server-config.js';
import { startNatsServer, type EmbeddedNatsServer } from './nats-server-process.js';
import type { NatsSettings } from './nats-settings.js';
import type { ReplayRetention } from './stream-replay.js';

/**
 * The service's NATS side once started: the embedded server or the link to an outside one,
 * and the chat gateway on top. Its state for `GET /`, credentials for accounts, and shutdown.
 */
export interface NatsService {
  state(): NatsLinkState;
  /** Undefined when NATS is disabled. */
  credentials(accountId: string): Promise<NatsCredentialsView | undefined>;
  /** The embedded server, when the service started one. */
  server?: EmbeddedNatsServer;
  gateway?: NatsGateway;
  close(): Promise<void>;
}

export interface StartNatsServiceOptions {
  settings: NatsSettings;
  core: HarnessCore;
  dataDir: string;
  /** The runtime admin secret: the NATS stage secret (and from it the operator and account keys) is derived from it. */
  adminSecret: string;
  logger: Logger;
  retention?: ReplayRetention;
  /** Each account's share of the chunk stream: `HARNESS_CHUNKS_MAX_BYTES_PER_ACCOUNT`, `HARNESS_CHUNKS_MAX_TRACKED_TURNS`. */
  retentionShare?: ChunkRetentionSettings;
  replayIdleTimeoutMilliseconds?: number;
}

/** A secret for one NATS purpose, derived from the admin secret with HKDF-SHA256: nothing more to store. */
export function deriveNatsSecret(adminSecret: string, purpose: 'stage-secret'): string {
  return Buffer.from(hkdfSync('sha256', adminSecret, 'harness-nats-v1', purpose, 32)).toString('base64url');
}

/**
 * How clients authenticate, from how the service itself does: the servers it runs (or trusts
 * with `NATS_AUTH=jwt`) take the users it signs; an operator's server takes what the service
 * connects with: a users list (a user in `NATS_URL`, derived passwords for accounts), a token,
 * users the operator signs, or nothing.
 */
function authenticationMode(settings: Exclude<NatsSettings, { mode: 'disabled' }>, signs: boolean): NatsAuthenticationMode {
  if (signs) return 'jwt';
  if (settings.mode !== 'external') return 'none';
  if (settings.jwt !== undefined) return 'operator';
  if (settings.user !== undefined) return 'password';
  if (settings.token !== undefined) return 'token';
  return 'none';
}

function disabledService(): NatsService {
  return { state: () => 'disabled', credentials: async () => undefined, close: async () => undefined };
}

/**
 * Starts NATS as `readNatsSettings()` says: nothing (disabled), the embedded nats-server in
 * operator mode (decentralized JWT authentication: account users are signed on demand, the
 * server's config never changes per account), or a connection to an outside server or
 * cluster; then the gateway on top. A NATS that is unreachable never fails this: the link
 * keeps trying in the background. Only an embedded server that was required explicitly
 * (`ENABLE_WEBSOCKET=true`) and cannot start throws.
 */
export async function startNatsService(options: StartNatsServiceOptions): Promise<NatsService> {
  const { settings, core, logger } = options;
  if (settings.mode === 'disabled') return disabledService();
  const stageSecret = deriveNatsSecret(options.adminSecret, 'stage-secret');
  let server: EmbeddedNatsServer | undefined;
  let authority: NatsAuthority | undefined;
  let link: NatsLink;
  if (settings.mode === 'embedded') {
    try {
      server = await startNatsServer({ dataDir: options.dataDir, stageSecret, logger });
    } catch (error) {
      if (settings.required) throw error;
      if (error instanceof NatsServerBinaryMissingError) logger.warn({ component: 'nats' }, `NATS is disabled: ${error.message}`);
      else logger.error({ component: 'nats', error: (error as Error).message }, 'nats-server did not start; NATS is disabled');
      return disabledService();
    }
    authority = server.authority;
    link = createNatsLink({ url: server.url, ...server.serviceCredentials, name: 'harness-gateway', logger });
  } else if (settings.authentication === 'jwt') {
    authority = await createNatsAuthority(stageSecret);
    const service = await authority.issueUser(serviceNatsUser);
    link = createNatsLink({ url: settings.url, jwt: service.jwt, seed: service.seed, name: 'harness-gateway', logger });
  } else {
    link = createNatsLink({
      url: settings.url,
      ...(settings.token === undefined ? {} : { token: settings.token }),
      ...(settings.user === undefined ? {} : { user: settings.user, password: settings.password ?? '' }),
      ...(settings.jwt === undefined ? {} : { jwt: settings.jwt, seed: settings.seed ?? '' }),
      name: 'harness-gateway',
      logger,
    });
  }
  const gateway = createNatsGateway({ core, link, logger, retention: options.retention, retentionShare: options.retentionShare, replayIdleTimeoutMilliseconds: options.replayIdleTimeoutMilliseconds });
  // The one place the core is extended after it was built: NATS starts after the core (its
  // gateway runs the core's turns), and once it does, SSE turns are logged in the chunk stream
  // (so any replica can resume them) and NATS continuations stream to their reply subjects.
  core.chunkLog.use(gateway.chunkLog);
  core.continuationDeliveries.nats = gateway.continuationDelivery;
  link.start();
  const urls =
    server !== undefined
      ? { url: server.url, websocketUrl: server.websocketUrl }
      : settings.mode === 'external' && settings.transport === 'websocket'
        ? { url: null, websocketUrl: settings.url }
        : { url: settings.mode === 'external' ? settings.url : null, websocketUrl: null };
  const signer = authority;
  const authentication = authenticationMode(settings, signer !== undefined);
  let closing: Promise<void> | undefined;
  return {
    state: () => gateway.state(),
    async credentials(accountId: string): Promise<NatsCredentialsView> {
      const credentials = accountNatsCredentials(stageSecret, accountId);
      const secret =
        signer !== undefined
          ? await issueAccountUser(signer, accountId).then((user) => ({ user: credentials.user, password: user.seed, jwt: user.jwt, creds: user.creds }))
          : authentication === 'password'
            ? { user: credentials.user, password: credentials.password, jwt: null, creds: null }
            : // An operator's token or users: the service has nothing to give (its own token opens every subject).
              { user: null, password: null, jwt: null, creds: null };
      return {
        authentication,
        ...urls,
        ...secret,
        inboxPrefix: credentials.inboxPrefix,
        chatSubject: `${credentials.subjectPrefix}.${agentIdPlaceholder}.chat`,
        replaySubject: `${credentials.subjectPrefix}.${agentIdPlaceholder}.replay`,
        replySubject: `${credentials.inboxPrefix}.>`,
      };
    },
    ...(server === undefined ? {} : { server }),
    gateway,
    close: () => {
      closing ??= (async () => {
        await gateway.close();
        await link.close();
        await server?.stop();
      })();
      return closing;
    },
  };
}
