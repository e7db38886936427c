import { tool } from 'ai';
import { z } from 'zod';
import { callSearchService } from './search-service.js';
import type { ToolFactory } from './tool-factory.js';
import { resolveSearchApiKey, serviceOptions } from './tool-options.js';

interface SearchAnswer {
  query?: string;
  answer?: string | null;
  results?: { title?: string; url?: string; content?: string; score?: number }[];
}

/** Web search through the third-party search service (Tavily's `POST /search`). */
export const alphaSearchFactory: ToolFactory = (toolConfig, context) => {
  const options = serviceOptions(toolConfig);
  return {
    alphaSearch: tool({
      description: 'Search the web. Returns a list of results with title, url, content and score.',
      inputSchema: z.object({ query: z.string().min(1).describe('What to search for') }),
      execute: async ({ query }, { abortSignal }) => {
        // Resolved per call: a missing key fails this tool, and the model is told, not the whole turn.
        const apiKey = resolveSearchApiKey('alphaSearch', toolConfig, context);
        const answer = (await callSearchService({
          toolName: 'alphaSearch',
          baseUrl: context.environment.alphaBaseUrl,
          path: '/search',
          apiKey,
          body: { ...options, query },
          fetch: context.fetch,
          abortSignal,
        })) as SearchAnswer;
        return {
          query,
          answer: answer.answer ?? null,
          results: (answer.results ?? []).map((result) => ({ title: result.title ?? '', url: result.url ?? '', content: result.content ?? '', score: result.score ?? null })),
        };
      },
    }),
  };
};
