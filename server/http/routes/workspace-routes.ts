import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InvalidRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../core/errors.js';
import type { HarnessCore } from '../../core/harness-core.js';
import type { WorkspaceAddress } from '../../core/sandbox/workspace-files.js';
import { currentAccount, requireAccount } from '../authentication.js';

/** Largest file `PUT .../files/*` accepts. */
export const maxUploadBytes = 25 * 1024 * 1024;

interface WorkspaceParams {
  agentId: string;
  workspace: string;
  '*'?: string;
}

const workspaceParams = {
  type: 'object',
  required: ['agentId', 'workspace'],
  properties: {
    agentId: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' },
    workspace: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,31}$' },
    '*': { type: 'string' },
  },
} as const;

const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { path: { type: 'string', minLength: 1, maxLength: 1024 } },
} as const;

const base = '/accounts/me/agents/:agentId/workspaces/:workspace/files';

function address(request: FastifyRequest<{ Params: WorkspaceParams }>): WorkspaceAddress {
  return { accountId: currentAccount(request).accountId, agentId: request.params.agentId, workspace: request.params.workspace };
}

function filePath(request: FastifyRequest<{ Params: WorkspaceParams }>): string {
  const requested = request.params['*'] ?? '';
  if (requested === '') throw new InvalidRequestError('path is required: name a file after /files/');
  return requested;
}

/** Refuse a wrong media type or a declared size past the limit before the body is read. */
async function checkUpload(request: FastifyRequest): Promise<void> {
  const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (contentType !== 'application/octet-stream') {
    throw new UnsupportedMediaTypeError('Send the file as the raw body with Content-Type: application/octet-stream.');
  }
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > maxUploadBytes) {
    throw new PayloadTooLargeError(`The file is ${declared} bytes, more than the upload limit of ${maxUploadBytes} bytes.`);
  }
}

/**
 * Files in and out of an agent's workspaces (`harness workspace push|pull|ls`): list,
 * download (raw bytes), upload (raw `application/octet-stream` body) and delete. Paths are
 * relative to the workspace root and resolved like the file tools' paths (400 for escapes);
 * an unknown agent or workspace is a 404.
 */
export function registerWorkspaceRoutes(app: FastifyInstance, core: HarnessCore): void {
  requireAccount(app, core, (scope) => {
    // Raw bytes, only in this scope; the JSON routes keep their 1 MiB limit.
    scope.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: maxUploadBytes }, (_request, body, done) => done(null, body));

    scope.get<{ Params: WorkspaceParams; Querystring: { path?: string } }>(base, { schema: { params: workspaceParams, querystring: listQuery } }, async (request) =>
      core.workspaceFiles.list(address(request), request.query.path ?? '.'),
    );

    scope.get<{ Params: WorkspaceParams }>(`${base}/*`, { schema: { params: workspaceParams } }, async (request, reply) => {
      const file = await core.workspaceFiles.read(address(request), filePath(request));
      return reply.header('content-type', 'application/octet-stream').header('content-length', String(file.size)).send(file.stream);
    });

    scope.put<{ Params: WorkspaceParams; Body: Buffer }>(`${base}/*`, { schema: { params: workspaceParams }, onRequest: checkUpload }, async (request) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      return core.workspaceFiles.write(address(request), filePath(request), body);
    });

    scope.delete<{ Params: WorkspaceParams }>(`${base}/*`, { schema: { params: workspaceParams } }, async (request, reply) => {
      await core.workspaceFiles.delete(address(request), filePath(request));
      return reply.status(204).send();
    });
  });
}
