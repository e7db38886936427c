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
  /**
   * From `NATS_URL`'s user information (`nats://harness-service:<password>@host:4222`), for
   * an outside server with per-user authorization, where a token cannot be used. `url`
   * then no longer carries them, so it can be logged.
   */
  user?: string;
  password?: string;
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

function withoutUserInformation(url: string): { url: string; user?: string; password?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('NATS_URL is not a valid URL.');
  }
  if (parsed.username === '' && parsed.password === '') return { url };
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.toString().replace(/\/$/, ''), user, password };
}

/**
 * Reads `NATS_URL`, `NATS_TOKEN` and `ENABLE_WEBSOCKET`. `ENABLE_WEBSOCKET`
 * defaults to true, whether or not `NATS_URL` is set; `false` turns NATS off entirely.
 */
export function readNatsSettings(environment: NodeJS.ProcessEnv = process.env): NatsSettings {
  const explicit = environment.ENABLE_WEBSOCKET !== undefined && environment.ENABLE_WEBSOCKET !== '';
  if (!booleanSetting('ENABLE_WEBSOCKET', environment.ENABLE_WEBSOCKET, true)) return { mode: 'disabled' };
  const url = environment.NATS_URL?.trim() || undefined;
  const token = environment.NATS_TOKEN || undefined;
  if (url !== undefined) {
    const transport = natsTransportOf(url);
    return { mode: 'external', transport, ...withoutUserInformation(url), ...(token === undefined ? {} : { token }) };
  }
  return { mode: 'embedded', required: explicit, ...(token === undefined ? {} : { serviceToken: token }) };
}
