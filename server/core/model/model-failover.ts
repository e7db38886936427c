import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart, LanguageModelV4StreamResult } from '@ai-sdk/provider';
import { trace } from '@opentelemetry/api';
import { APICallError } from 'ai';
import { UpstreamError } from '../errors.js';
import { isRecord } from '../is-record.js';
import type { AgentModel, AnsweringModel, ModelCallSettings } from './agent-model.js';


/** Stream parts that carry nothing the caller sees: a failure after them is still "before the first token". */
const preludeParts = new Set<LanguageModelV4StreamPart['type']>(['stream-start', 'response-metadata', 'text-start', 'reasoning-start', 'raw', 'ping']);

/** The error types providers put in a stream's error event when they are overloaded or out of capacity (Anthropic `overloaded_error`...). */
const overloadedTypes = new Set(['overloaded_error', 'rate_limit_error', 'api_error', 'server_error', 'service_unavailable', 'internal_server_error']);

function errorType(error: unknown): string | undefined {
  if (!isRecord(error)) return undefined;
  if (typeof error.type === 'string' && error.type !== 'error') return error.type;
  return isRecord(error.error) && typeof error.error.type === 'string' ? error.error.type : undefined;
}

/**
 * A failure the next model may answer instead: 429, any 5xx (Anthropic's 529 overloaded
 * included), a time limit, or an overloaded error event. A 4xx other than 429 (a bad key, a
 * request the model refuses) would fail on the next model the same way, or hide a config error.
 */
export function isFailoverError(error: unknown): boolean {
  if (APICallError.isInstance(error)) return error.statusCode === 429 || (error.statusCode !== undefined && error.statusCode >= 500);
  if (error instanceof Error && error.name === 'TimeoutError') return true;
  const type = errorType(error);
  return type !== undefined && overloadedTypes.has(type);
}

const settingNames = ['temperature', 'topP', 'topK', 'maxOutputTokens', 'stopSequences', 'seed', 'presencePenalty', 'frequencyPenalty'] as const;

/** One model of the chain, with its own settings (each fallback has its own, not the first model's). */
interface Candidate extends AnsweringModel {
  model: LanguageModelV4;
  callSettings: ModelCallSettings;
  providerOptions: LanguageModelV4CallOptions['providerOptions'];
}

function optionsFor(candidate: Candidate, options: LanguageModelV4CallOptions, abortSignal: AbortSignal): LanguageModelV4CallOptions {
  const own: Record<string, unknown> = { ...options, abortSignal, providerOptions: candidate.providerOptions };
  for (const name of settingNames) own[name] = candidate.callSettings[name];
  return own as LanguageModelV4CallOptions;
}

/** The call's abort signal and the candidate's own time limit (`timeoutMs`), which covers its whole call. */
function attemptSignal(caller: AbortSignal | undefined, timeoutMs: number | undefined): { signal: AbortSignal; timedOut: () => boolean; done: () => void; abort: (reason: unknown) => void } {
  const controller = new AbortController();
  const follow = () => controller.abort(caller?.reason);
  if (caller?.aborted) follow();
  else caller?.addEventListener('abort', follow, { once: true });
  let timedOut = false;
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`The model did not answer within ${timeoutMs} ms.`, 'TimeoutError'));
  }, timeoutMs);
  timer?.unref();
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    abort: (reason) => controller.abort(reason),
    done: () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', follow);
    },
  };
}

function noteFailover(from: Candidate, to: Candidate, error: unknown): void {
  const reason = APICallError.isInstance(error) ? `HTTP ${error.statusCode ?? 'error'}` : (errorType(error) ?? (error instanceof Error ? error.name : 'error'));
  trace.getActiveSpan()?.addEvent('harness.model.failover', { 'harness.model.failed': `${from.providerName}:${from.modelId}`, 'harness.model.next': `${to.providerName}:${to.modelId}`, 'harness.model.reason': reason });
}

/**
 * `config.model.fallbacks` as one model: each call goes to the first model; when it fails
 * before its first token (before any text, reasoning or tool call reaches the caller) with a
 * failover error, the same call goes to the next model, with that model's own settings. Once
 * output has streamed the call stays with its model, whatever happens. Each model is tried
 * once (no retries: the next model is the retry); `answeredBy` names the one that answered.
 */
export class FailoverModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4';
  readonly provider: string;
  readonly modelId: string;
  private answered: AnsweringModel;

  constructor(private readonly candidates: readonly Candidate[]) {
    const first = candidates[0] as Candidate;
    this.provider = first.model.provider;
    this.modelId = first.model.modelId;
    this.answered = { providerName: first.providerName, modelId: first.modelId };
  }

  get supportedUrls() {
    return (this.candidates[0] as Candidate).model.supportedUrls;
  }

  /** The model that answered the latest call. */
  answeredBy(): AnsweringModel {
    return this.answered;
  }

  async doGenerate(options: LanguageModelV4CallOptions) {
    for (let index = 0; ; index += 1) {
      const candidate = this.candidates[index] as Candidate;
      const attempt = attemptSignal(options.abortSignal, candidate.callSettings.timeout);
      try {
        const result = await candidate.model.doGenerate(optionsFor(candidate, options, attempt.signal));
        this.answered = candidate;
        return result;
      } catch (error) {
        if (!this.movesOn(index, error, options)) throw error;
        noteFailover(candidate, this.candidates[index + 1] as Candidate, error);
      } finally {
        attempt.done();
      }
    }
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    for (let index = 0; ; index += 1) {
      const candidate = this.candidates[index] as Candidate;
      const attempt = attemptSignal(options.abortSignal, candidate.callSettings.timeout);
      let failure: unknown;
      try {
        const opened = await candidate.model.doStream(optionsFor(candidate, options, attempt.signal));
        const started = await this.firstOutput(opened, attempt);
        if ('result' in started) {
          this.answered = candidate;
          return started.result;
        }
        failure = started.failure;
      } catch (error) {
        failure = error;
      }
      attempt.done();
      if (!this.movesOn(index, failure, options)) throw failure;
      noteFailover(candidate, this.candidates[index + 1] as Candidate, failure);
    }
  }

  /** True when the call goes on to the next model: a failover error, a next model, and the caller has not aborted. */
  private movesOn(index: number, error: unknown, options: LanguageModelV4CallOptions): boolean {
    return index + 1 < this.candidates.length && options.abortSignal?.aborted !== true && isFailoverError(error);
  }

  /**
   * Reads the stream up to its first output part. A failover error part before it is a
   * failure (the stream is dropped); otherwise the stream is handed on whole, from its start.
   */
  private async firstOutput(opened: LanguageModelV4StreamResult, attempt: ReturnType<typeof attemptSignal>): Promise<{ result: LanguageModelV4StreamResult } | { failure: unknown }> {
    const reader = opened.stream.getReader();
    const held: LanguageModelV4StreamPart[] = [];
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        return { failure: attempt.timedOut() ? new DOMException('The model did not answer in time.', 'TimeoutError') : error };
      }
      if (next.done) break;
      const part = next.value;
      if (part.type === 'error' && isFailoverError(part.error)) {
        attempt.abort(part.error);
        void reader.cancel().catch(() => undefined);
        return { failure: part.error };
      }
      held.push(part);
      if (!preludeParts.has(part.type)) break;
    }
    return { result: { ...opened, stream: handOn(held, reader, attempt) } };
  }
}

/** The parts read so far, then the rest of the stream; its time limit still runs, and ends the stream as the model's failure. */
function handOn(held: LanguageModelV4StreamPart[], reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart>, attempt: ReturnType<typeof attemptSignal>): ReadableStream<LanguageModelV4StreamPart> {
  return new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      for (const part of held) controller.enqueue(part);
    },
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) {
          attempt.done();
          controller.close();
        } else controller.enqueue(next.value);
      } catch (error) {
        attempt.done();
        if (!attempt.timedOut()) throw error;
        // Past the first token there is no failover: the time limit fails the call.
        controller.enqueue({ type: 'error', error: new UpstreamError('the model did not finish within its timeoutMs') });
        controller.close();
      }
    },
    cancel(reason) {
      // The caller let go of the answer: its request is stopped too, not left streaming.
      attempt.abort(reason);
      attempt.done();
      return reader.cancel(reason);
    },
  });
}

/**
 * The agent's model with its fallbacks: one `AgentModel` whose model fails over along the
 * chain. Each model applies its own settings and time limit inside the chain, so `streamText`
 * gets no time limit of its own and no retries (the next model is the retry).
 */
export function withFallbacks(primary: AgentModel, fallbacks: readonly AgentModel[]): AgentModel {
  if (fallbacks.length === 0) return primary;
  const candidates: Candidate[] = [primary, ...fallbacks].map((agentModel) => {
    if (typeof agentModel.model === 'string') throw new TypeError('a fallback model must be a model object');
    return { model: agentModel.model as LanguageModelV4, providerName: agentModel.providerName, modelId: agentModel.modelId, callSettings: agentModel.callSettings, providerOptions: agentModel.providerOptions };
  });
  const failover = new FailoverModel(candidates);
  const { timeout: _timeout, ...callSettings } = primary.callSettings;
  return { ...primary, model: failover, callSettings: { ...callSettings, maxRetries: 0 }, answeredBy: () => failover.answeredBy() };
}
