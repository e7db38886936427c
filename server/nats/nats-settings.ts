import { booleanSetting } from '../runtime-settings.js';
import { natsTransportOf, type NatsTransport } from './nats-connection.js';

/** NATS is off (`ENABLE_WEBSOCKET=false`): no server, no connection; `GET /` says `disabled`. */
export interface DisabledNatsSettings {
  mode: 'disabled';
}

/** `NATS_URL` is set: connect to that server; the service starts none. */
export interface ExternalNatsSettings {
  mode: 'external';
  url: string;
  transport: NatsTransport;
  /** `NATS_TOKEN`, sent as token authentication. */
  token?: string;
}

/** No `NATS_URL`: the service starts its own nats-server (see `startNatsServer`). */
export interface EmbeddedNatsSettings {
  mode: 'embedded';
  /** `NATS_TOKEN`: the password of the `harness-service` user; when absent the service generates and keeps one. */
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
 * Reads `NATS_URL`, `NATS_TOKEN` and `ENABLE_WEBSOCKET` (contract §2). `ENABLE_WEBSOCKET`
 * defaults to true, whether or not `NATS_URL` is set; `false` turns NATS off entirely.
 */
export function readNatsSettings(environment: NodeJS.ProcessEnv = process.env): NatsSettings {
  const explicit = environment.ENABLE_WEBSOCKET !== undefined && environment.ENABLE_WEBSOCKET !== '';
  if (!booleanSetting('ENABLE_WEBSOCKET', environment.ENABLE_WEBSOCKET, true)) return { mode: 'disabled' };
  const url = environment.NATS_URL?.trim() || undefined;
  const token = environment.NATS_TOKEN || undefined;
  if (url !== undefined) {
    return { mode: 'external', url, transport: natsTransportOf(url), ...(token === undefined ? {} : { token }) };
  }
  return { mode: 'embedded', required: explicit, ...(token === undefined ? {} : { serviceToken: token }) };
}
