import { booleanSetting } from '../runtime-settings.js';
import { natsTransportOf, type NatsTransport, withoutUserInformation } from './nats-connection.js';

/** NATS is off (`ENABLE_WEBSOCKET=false`): no server, no connection; `GET /` says `disabled`. */
export interface DisabledNatsSettings {
  mode: 'disabled';
}

/** `NATS_URL` is set: connect to that server (or cluster); the service starts none. */
export interface ExternalNatsSettings {
  mode: 'external';
  /** One server, or several of one cluster comma-separated: the client picks one and fails over to the others. */
  url: string;
  transport: NatsTransport;
  /** `NATS_TOKEN` (else a token in `NATS_URL`: `nats://<token>@host:4222`), sent as token authentication. */
  token?: string;
  /**
   * From `NATS_URL`'s user information (`nats://harness-service:<password>@host:4222`), for
   * an outside server with per-user authorization, where a token cannot be used. `url`
   * then no longer carries them, so it can be logged.
   */
  user?: string;
  password?: string;
  /** A user JWT and its nkey seed (a server in operator mode); not read from the environment. */
  jwt?: string;
  seed?: string;
  /**
   * `NATS_AUTH=jwt`: the servers trust the operator the service derives from
   * `HARNESS_ADMIN_SECRET` (a cluster started by `startNatsCluster` / `harness cluster up`
   * with the same secret). The service then connects, and signs account credentials, as it
   * does for its embedded server. Otherwise (`NATS_AUTH=token`, the default) it connects
   * with `NATS_TOKEN` or the URL's user information.
   */
  authentication?: 'jwt' | 'token';
}

/** No `NATS_URL`: the service starts its own nats-server (see `startNatsServer`). */
export interface EmbeddedNatsSettings {
  mode: 'embedded';
  /**
   * `NATS_TOKEN` as read. The embedded server authenticates every client, the service
   * included, with JWTs signed by keys derived from the admin secret, so it needs no token;
   * the value is kept only so the setting reads the same in both modes.
   */
  serviceToken?: string;
  /**
   * True when `ENABLE_WEBSOCKET=true` was set explicitly: a missing nats-server binary is
   * then an error. Otherwise (the default) the service logs the install note and runs
   * with NATS disabled.
   */
  required: boolean;
}

export type NatsSettings = DisabledNatsSettings | ExternalNatsSettings | EmbeddedNatsSettings;

/**
 * Reads `NATS_URL`, `NATS_TOKEN`, `NATS_AUTH` and `ENABLE_WEBSOCKET`. `ENABLE_WEBSOCKET`
 * defaults to true, whether or not `NATS_URL` is set; `false` turns NATS off entirely.
 */
export function readNatsSettings(environment: NodeJS.ProcessEnv = process.env): NatsSettings {
  const explicit = environment.ENABLE_WEBSOCKET !== undefined && environment.ENABLE_WEBSOCKET !== '';
  if (!booleanSetting('ENABLE_WEBSOCKET', environment.ENABLE_WEBSOCKET, true)) return { mode: 'disabled' };
  const url = environment.NATS_URL?.trim() || undefined;
  const token = environment.NATS_TOKEN || undefined;
  if (url !== undefined) {
    const transport = natsTransportOf(url);
    const authentication = environment.NATS_AUTH?.trim() || 'token';
    if (authentication !== 'jwt' && authentication !== 'token') throw new Error(`NATS_AUTH must be jwt or token (got ${JSON.stringify(authentication)}).`);
    // NATS_TOKEN wins over a token in the URL.
    return {
      mode: 'external',
      transport,
      ...withoutUserInformation(url),
      ...(token === undefined ? {} : { token }),
      ...(authentication === 'jwt' ? { authentication } : {}),
    };
  }
  return { mode: 'embedded', required: explicit, ...(token === undefined ? {} : { serviceToken: token }) };
}
