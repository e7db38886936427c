import { APICallError } from 'ai';

/**
 * Each provider's "the request is larger than the window" answer, as it words it:
 * OpenAI (and Azure, Groq, xAI, Mistral, DeepSeek) `context_length_exceeded` / "maximum context
 * length is N tokens"; Anthropic "prompt is too long: N tokens > M maximum"; Google "The input
 * token count (N) exceeds the maximum number of tokens allowed (M)"; Bedrock "Input is too long
 * for requested model".
 */
const overflowPatterns = [
  /context_length_exceeded/i,
  /maximum context length/i,
  /exceeds the context window/i,
  /prompt is too long/i,
  /input token count.*exceeds the maximum/i,
  /input is too long/i,
  /too many tokens/i,
];

function texts(error: unknown, seen = new Set<unknown>()): string[] {
  if (error === null || typeof error !== 'object' || seen.has(error)) return typeof error === 'string' ? [error] : [];
  seen.add(error);
  const found: string[] = [];
  if (error instanceof Error) found.push(error.message);
  if (APICallError.isInstance(error) && error.responseBody) found.push(error.responseBody);
  const record = error as { cause?: unknown; lastError?: unknown; errors?: unknown };
  for (const inner of [record.cause, record.lastError, ...(Array.isArray(record.errors) ? record.errors : [])]) found.push(...texts(inner, seen));
  return found;
}

/** True when a model call failed because the request did not fit the model's window. */
export function isContextOverflow(error: unknown): boolean {
  return texts(error).some((text) => overflowPatterns.some((pattern) => pattern.test(text)));
}
