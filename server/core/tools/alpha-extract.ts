import { tool } from 'ai';
import { z } from 'zod';
import { callSearchService } from './search-service.js';
import type { ToolFactory } from './tool-factory.js';
import { resolveSearchApiKey, serviceOptions } from './tool-options.js';

interface ExtractAnswer {
  results?: { url?: string; raw_content?: string }[];
  failed_results?: { url?: string; error?: string }[];
}

/** Page extraction through the same service (Tavily's `POST /extract`). */
export const alphaExtractFactory: ToolFactory = (toolConfig, context) => {
  const options = serviceOptions(toolConfig);
  return {
    alphaExtract: tool({
      description: 'Extract the text content of web pages. Returns each page with its url and content, and the urls that failed.',
      inputSchema: z.object({ urls: z.array(z.string().min(1)).min(1).max(20).describe('Page addresses to extract') }),
      execute: async ({ urls }, { abortSignal }) => {
        // Resolved per call: a missing key fails this tool, and the model is told, not the whole turn.
        const apiKey = resolveSearchApiKey('alphaExtract', toolConfig, context);
        const answer = (await callSearchService({
          toolName: 'alphaExtract',
          baseUrl: context.environment.alphaBaseUrl,
          path: '/extract',
          apiKey,
          body: { ...options, urls },
          fetch: context.fetch,
          abortSignal,
        })) as ExtractAnswer;
        return {
          pages: (answer.results ?? []).map((page) => ({ url: page.url ?? '', content: page.raw_content ?? '' })),
          failed: (answer.failed_results ?? []).map((failure) => ({ url: failure.url ?? '', error: failure.error ?? 'failed' })),
        };
      },
    }),
  };
};
