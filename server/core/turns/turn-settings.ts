import { integerSetting } from '../integer-setting.js';

/** Bounds on what one turn's model calls may leave behind (the operator's `HARNESS_TURN_*` settings). */
export interface TurnSettings {
  /**
   * `HARNESS_TURN_MAX_ANSWER_CHARACTERS` (default 1048576, about 256,000 tokens, past any
   * model's output limit): the characters one model call may stream (text, reasoning, tool
   * input). Past it the call is stopped and fails ("the model's answer exceeded N characters"),
   * so an answer the conversation stores (and sends with every later call) stays bounded well
   * below `HARNESS_MODEL_MAX_RESPONSE_BYTES`; a cancelled call keeps at most this much text.
   */
  maxAnswerCharacters: number;
}

export const defaultTurnSettings: TurnSettings = {
  maxAnswerCharacters: 1024 * 1024,
};

/** Reads the `HARNESS_TURN_*` variables over the defaults; a bad value is a start error naming the variable. */
export function turnSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): TurnSettings {
  return {
    maxAnswerCharacters: integerSetting(environment, 'HARNESS_TURN_MAX_ANSWER_CHARACTERS', defaultTurnSettings.maxAnswerCharacters, 1024, 1024 * 1024 * 1024),
  };
}
