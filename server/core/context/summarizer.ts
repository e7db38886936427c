import { generateText, type ModelMessage } from 'ai';
import type { AgentModel } from '../model/language-model.js';
import { usageFromModel, type TokenUsage } from '../usage/token-usage.js';
import { summaryPrompt, transcriptChunks } from './summary-prompt.js';
import { estimateTextTokens } from './token-count.js';

/** What a summary call is given. */
export interface SummaryRequest {
  model: AgentModel;
  /** The summary the new one replaces (a summary of summaries), when there is one. */
  previousSummary?: string;
  /** The messages it folds in. */
  messages: readonly ModelMessage[];
  /** The input tokens one summary call may send (the summary model's budget). */
  maxInputTokens: number;
  /** Tool outputs are cut to this many tokens in the transcript. */
  maxToolOutputTokens: number;
  maxRetries: number;
  signal: AbortSignal;
}

/** The summary, and each summary call's usage (counted as the turn's). */
export interface SummaryResult {
  summary: string;
  calls: TokenUsage[];
}

/**
 * Folds `messages` into the previous summary with the model, a chunk at a time when the
 * transcript is larger than one call may send: each call summarizes the summary so far and
 * the next chunk, so a history of any length ends in one summary.
 */
export async function summarize(request: SummaryRequest): Promise<SummaryResult> {
  const answerTokens = Math.max(256, Math.min(4_000, Math.floor(request.maxInputTokens / 4)));
  const room = request.maxInputTokens - estimateTextTokens(summaryPrompt) - answerTokens - 200;
  let summary = request.previousSummary;
  const calls: TokenUsage[] = [];
  // Each chunk leaves room for the summary so far, which is at most one answer long.
  const chunks = transcriptChunks(request.messages, Math.max(200, room - answerTokens), Math.min(request.maxToolOutputTokens, 500));
  for (const chunk of chunks) {
    const text = `${summary ? `Previous summary:\n${summary}\n\n` : ''}Transcript:\n${chunk}`;
    const result = await generateText({
      model: request.model.model,
      instructions: summaryPrompt,
      messages: [{ role: 'user', content: text }],
      maxOutputTokens: answerTokens,
      maxRetries: request.maxRetries,
      abortSignal: request.signal,
      ...(request.model.providerOptions ? { providerOptions: request.model.providerOptions } : {}),
    });
    calls.push({ ...usageFromModel(result.usage), provider: request.model.providerName, model: request.model.modelId });
    summary = result.text.trim() || summary;
  }
  return { summary: summary ?? '', calls };
}
