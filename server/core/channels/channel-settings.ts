import { integerSetting } from '../integer-setting.js';

/** How the service talks to channel providers' APIs (the operator's `HARNESS_CHANNEL_*` settings). */
export interface ChannelSettings {
  /**
   * `HARNESS_CHANNEL_MAX_RESPONSE_BYTES` (default 1 MiB): the bytes read from one answer of a
   * provider's API. An account's `apiBaseUrl` may point at a server that answers without end.
   */
  maxResponseBytes: number;
  /** `HARNESS_CHANNEL_REQUEST_TIMEOUT_MS` (default 15000): one API call, from the request to the answer's last byte. */
  requestTimeoutMs: number;
}

export const defaultChannelSettings: ChannelSettings = {
  maxResponseBytes: 1024 * 1024,
  requestTimeoutMs: 15_000,
};

/** Reads the `HARNESS_CHANNEL_*` variables over the defaults; a bad value is a start error naming the variable. */
export function channelSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): ChannelSettings {
  return {
    maxResponseBytes: integerSetting(environment, 'HARNESS_CHANNEL_MAX_RESPONSE_BYTES', defaultChannelSettings.maxResponseBytes, 1024, 64 * 1024 * 1024),
    requestTimeoutMs: integerSetting(environment, 'HARNESS_CHANNEL_REQUEST_TIMEOUT_MS', defaultChannelSettings.requestTimeoutMs, 100, 300_000),
  };
}
