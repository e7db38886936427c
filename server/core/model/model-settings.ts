import { integerSetting } from '../integer-setting.js';

/** Bounds on what one model call may cost the service (the operator's `HARNESS_MODEL_*` settings). */
export interface ModelSettings {
  /**
   * `HARNESS_MODEL_MAX_RESPONSE_BYTES` (default 32 MiB): the bytes read from one model call's
   * answer. An account's `baseURL` may point at a server that streams forever; past this the
   * call fails with "the model's answer exceeded N bytes".
   */
  maxResponseBytes: number;
  /**
   * `HARNESS_MODEL_MAX_RESPONSE_MS` (default 600000, 10 minutes): one model call, from the
   * request to the answer's last byte. Past it the call fails with "the model's answer took
   * longer than N ms".
   */
  maxResponseMs: number;
  /**
   * `HARNESS_MODEL_MAX_EVENT_BYTES` (default 8 MiB): the bytes of one server-sent event of a
   * streamed answer (the lines up to a blank line). The AI SDK parses and re-serialises an event
   * in one go, so one 30 MiB event held the event loop 0.2 s; past this the call fails with "an
   * event of the model's answer exceeded N bytes". Large enough for an OpenAI Responses
   * `response.completed` event repeating a whole 1 Mi-character answer. Absent: the default.
   */
  maxEventBytes?: number;
}

export const defaultModelSettings: Required<ModelSettings> = {
  maxResponseBytes: 32 * 1024 * 1024,
  maxResponseMs: 600_000,
  maxEventBytes: 8 * 1024 * 1024,
};

/** Reads the `HARNESS_MODEL_*` variables over the defaults; a bad value is a start error naming the variable. */
export function modelSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): ModelSettings {
  return {
    maxResponseBytes: integerSetting(environment, 'HARNESS_MODEL_MAX_RESPONSE_BYTES', defaultModelSettings.maxResponseBytes, 1024, 1024 * 1024 * 1024),
    maxResponseMs: integerSetting(environment, 'HARNESS_MODEL_MAX_RESPONSE_MS', defaultModelSettings.maxResponseMs, 1_000, 24 * 3_600_000),
    maxEventBytes: integerSetting(environment, 'HARNESS_MODEL_MAX_EVENT_BYTES', defaultModelSettings.maxEventBytes, 64 * 1024, 1024 * 1024 * 1024),
  };
}
