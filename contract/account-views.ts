import { accountView, agentView } from './common-views.js';

/** The account and agent-config routes' bodies and views. */

export const signupBody = {
  type: 'object',
  required: ['username', 'description'],
  additionalProperties: false,
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 64, description: 'A-Z a-z 0-9 _ . -' },
    description: { type: 'string', maxLength: 2000 },
  },
} as const;

export const createdAccountView = {
  ...accountView,
  description: 'The new account, with its secret: shown this once, stored only as a hash.',
  required: [...accountView.required, 'secret'],
  properties: { ...accountView.properties, secret: { type: 'string' } },
} as const;

export const agentConfigBody = {
  type: 'object',
  required: ['config'],
  additionalProperties: false,
  properties: {
    config: {
      type: 'object',
      description: 'The agent config (`provider`, `system`, `tools`, `sandbox`, `workspace`, `channels`, ...); a redacted secret sent back keeps the stored value.',
    },
  },
} as const;

export const agentListView = { type: 'object', description: "The account's agents, redacted.", required: ['agents'], properties: { agents: { type: 'array', items: agentView } } } as const;
