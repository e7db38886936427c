import { integerSetting } from '../integer-setting.js';

/** How many stream resumes (SSE `GET .../stream`) and NATS replays may be open at once (the operator's `HARNESS_LIMIT_RESUMES_*`). */
export interface ResumeLimits {
  /** `HARNESS_LIMIT_RESUMES_PER_ACCOUNT` (default 20): open resumes and replays of one account, in this process. */
  perAccount: number;
  /** `HARNESS_LIMIT_RESUMES_PER_TURN` (default 5): open resumes and replays of one turn (a replay without a turn id: of its conversation), in this process. */
  perTurn: number;
}

export const defaultResumeLimits: ResumeLimits = { perAccount: 20, perTurn: 5 };

/** Reads the `HARNESS_LIMIT_RESUMES_*` variables over the defaults; a bad value is a start error naming the variable. */
export function resumeLimitsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): ResumeLimits {
  return {
    perAccount: integerSetting(environment, 'HARNESS_LIMIT_RESUMES_PER_ACCOUNT', defaultResumeLimits.perAccount, 1, 100_000),
    perTurn: integerSetting(environment, 'HARNESS_LIMIT_RESUMES_PER_TURN', defaultResumeLimits.perTurn, 1, 100_000),
  };
}
