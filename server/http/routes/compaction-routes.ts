import type { FastifyInstance } from 'fastify';
import type { HarnessCore } from '../../core/composition/harness-core.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { errorResponses } from '../openapi/error-responses.js';
import { agentIdParams } from '../schemas.js';
import { compactionAnswerView } from '../../../contract/run-control-views.js';

const conversationParams = {
  ...agentIdParams,
  required: ['agentId', 'conversationKey'],
  properties: { ...agentIdParams.properties, conversationKey: { type: 'string', minLength: 1, maxLength: 256 } },
} as const;

/** What the compaction route uses of the core. */
export type CompactionRouteParts = Pick<HarnessCore, 'accounts' | 'compaction'>;

/** `POST /agents/{agentId}/conversations/{conversationKey}/compact`. */
export function registerCompactionRoutes(app: FastifyInstance, core: CompactionRouteParts): void {
  requireAccount(app, core, (scope) => {
    scope.post<{ Params: { agentId: string; conversationKey: string } }>(
      '/agents/:agentId/conversations/:conversationKey/compact',
      {
        schema: {
          summary: 'Compact a conversation now',
          description:
            'Summarizes everything before the latest turn with the agent\'s model (or `config.context.summaryModel`) and stores the summary as a marker; the stored history stays whole. The summary calls count in the usage. 409 `conversation_busy` while a turn runs on the conversation, 409 `conflict` when the agent\'s `config.context.strategy` is `off`; 404 for an unknown conversation.',
          tags: ['chat'],
          params: conversationParams,
          response: { 200: compactionAnswerView, ...errorResponses(400, 404, 409, 429, 502) },
        },
      },
      async (request) => {
        const { agentId, conversationKey } = request.params;
        return core.compaction.compact(currentAccount(request).accountId, agentId, conversationKey);
      },
    );
  });
}
