/** The workspace file routes' views (`/accounts/me/agents/{agentId}/workspaces/{workspace}/files`). */

export const workspaceListingView = {
  type: 'object',
  description: 'The files, sorted by path.',
  required: ['agentId', 'workspace', 'path', 'files', 'truncated'],
  properties: {
    agentId: { type: 'string' },
    workspace: { type: 'string' },
    path: { type: 'string', description: 'The folder listed, relative to the workspace root (`.` for the root).' },
    files: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'size', 'modifiedAt'],
        properties: { path: { type: 'string' }, size: { type: 'integer' }, modifiedAt: { type: 'string', format: 'date-time' } },
      },
    },
    truncated: { type: 'boolean', description: 'True when more files were found than a listing holds, and the rest left out.' },
  },
} as const;

export const workspaceWrittenView = {
  type: 'object',
  description: 'Written.',
  required: ['path', 'bytes'],
  properties: { path: { type: 'string' }, bytes: { type: 'integer' } },
} as const;
