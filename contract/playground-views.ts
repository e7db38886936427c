/** The few account-service reads the agent service answers for the web playground (`/playground/api`). */

export const agentSummaryView = {
  type: 'object',
  required: ['agentId', 'tools'],
  properties: {
    agentId: { type: 'string' },
    tools: { type: 'array', items: { type: 'string' }, description: 'The names of the tools in its config.' },
  },
} as const;

export const agentSummaryListView = { type: 'object', description: 'The agents, by id.', required: ['agents'], properties: { agents: { type: 'array', items: agentSummaryView } } } as const;
