import { asSchema, type ModelMessage, type ToolSet } from 'ai';

/**
 * Token counts without a tokenizer: characters of the JSON a message is sent as, over 4
 * (English prose and JSON run at 3.5 to 4.5 characters a token with the OpenAI, Anthropic and
 * Gemini tokenizers; the wire format's own overhead is counted with it). The estimate is only
 * what was added since the provider's last reported count, and `TokenCalibration` corrects it
 * by what the provider reported for requests it estimated before.
 */
export const charactersPerToken = 4;

/** Binary content (images, files) counts as a fixed size rather than its bytes. */
const binaryTokens = 1_000;

function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) return 'x'.repeat(binaryTokens * charactersPerToken);
  return value;
}

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / charactersPerToken);
}

const messageTokens = new WeakMap<object, number>();

/** One message's tokens as sent (content and its framing), remembered per message object. */
export function estimateMessageTokens(message: ModelMessage): number {
  const known = messageTokens.get(message);
  if (known !== undefined) return known;
  const counted = Math.ceil((JSON.stringify(message, replacer)?.length ?? 0) / charactersPerToken) + 4;
  messageTokens.set(message, counted);
  return counted;
}

export function estimateMessagesTokens(messages: readonly ModelMessage[]): number {
  let sum = 0;
  for (const message of messages) sum += estimateMessageTokens(message);
  return sum;
}

const toolSetTokens = new WeakMap<object, number>();

/** The tool definitions' tokens: names, descriptions and input schemas as JSON. */
export function estimateToolTokens(tools: ToolSet | undefined): number {
  if (!tools) return 0;
  const known = toolSetTokens.get(tools);
  if (known !== undefined) return known;
  let characters = 0;
  for (const [name, tool] of Object.entries(tools)) {
    characters += name.length + (tool.description?.length ?? 0) + 40;
    try {
      const schema = 'inputSchema' in tool && tool.inputSchema ? asSchema(tool.inputSchema as Parameters<typeof asSchema>[0]).jsonSchema : undefined;
      characters += JSON.stringify(schema ?? {}).length;
    } catch {
      // A schema that cannot be shown as JSON here: counted as a typical one.
      characters += 400;
    }
  }
  const counted = Math.ceil(characters / charactersPerToken);
  toolSetTokens.set(tools, counted);
  return counted;
}

/** The whole request's input tokens, estimated: system prompt, tool definitions, messages. */
export function estimateRequestTokens(system: string, tools: ToolSet | undefined, messages: readonly ModelMessage[]): number {
  return estimateTextTokens(system) + estimateToolTokens(tools) + estimateMessagesTokens(messages) + 8;
}

/**
 * How far the estimate is from what a provider reports, per model: the ratio of reported to
 * estimated input tokens of the calls made so far (a moving average), never below 1 so that a
 * provider counting fewer tokens than estimated does not let a request grow past its window.
 */
export class TokenCalibration {
  private readonly ratios = new Map<string, number>();

  record(model: string, estimated: number, reported: number): void {
    if (estimated <= 0 || reported <= 0) return;
    const ratio = Math.min(3, Math.max(0.5, reported / estimated));
    const previous = this.ratios.get(model);
    this.ratios.set(model, previous === undefined ? ratio : previous * 0.7 + ratio * 0.3);
    if (this.ratios.size > 1_000) this.ratios.delete(this.ratios.keys().next().value as string);
  }

  /** `estimate` corrected for `model` (at least the estimate itself). */
  apply(model: string, estimate: number): number {
    return Math.ceil(estimate * Math.max(1, this.ratios.get(model) ?? 1));
  }
}
