/** The longest conversation key, in characters. */
export const conversationKeyMaxLength = 256;

// C0 controls, DEL and the C1 controls: none of them may appear in a key.
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The one rule for conversation keys, wherever a key comes from (chat, `/async`, NATS, cron
 * jobs, subagents, the CLI): a string of 1-256 characters with no control characters. Returns
 * what is wrong with `key`, or undefined when it is a valid key.
 */
export function conversationKeyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string') return 'must be a string';
  if (key.length === 0) return `must be 1-${conversationKeyMaxLength} characters`;
  if (key.length > conversationKeyMaxLength) return `must be at most ${conversationKeyMaxLength} characters (got ${key.length})`;
  if (controlCharacters.test(key)) return 'must not contain control characters';
  return undefined;
}

export function isValidConversationKey(key: unknown): key is string {
  return conversationKeyProblem(key) === undefined;
}
