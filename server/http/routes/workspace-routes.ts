import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InvalidRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../core/errors.js';
import type { HarnessCore } from '../../core/composition/harness-core.js';
import type { WorkspaceAddress } from '../../core/sandbox/workspace-files.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { errorResponses } from '../openapi/error-responses.js';
import { documentedBody } from '../openapi/documented-body.js';
import { workspaceListingView, workspaceWrittenView } from '../../../contract/workspace-views.js';

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
    workspace: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,31}$', description: 'A workspace name of the agent config (`config.workspace`).' },
    '*': { type: 'string', description: 'The file path, relative to the workspace root.' },
  },
} as const;

const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { path: { type: 'string', minLength: 1, maxLength: 1024, description: 'The folder (or file) to list; the root by default.' } },
} as const;

const fileContent = { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } as const;

const tags = ['workspaces'];

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

/** What the workspace file routes use of the core. */
export type WorkspaceRouteParts = Pick<HarnessCore, 'accounts' | 'workspaceFiles'>;

/**
 * Files in and out of an agent's workspaces (`harness workspace push|pull|ls`): list,
 * download (raw bytes), upload (raw `application/octet-stream` body) and delete. Paths are
 * relative to the workspace root and resolved like the file tools' paths (400 for escapes);
 * an unknown agent or workspace is a 404.
 */
export function registerWorkspaceRoutes(app: FastifyInstance, core: WorkspaceRouteParts): void {
  requireAccount(app, core, (scope) => {
    // Raw bytes, only in this scope; the JSON routes keep their 1 MiB limit.
    scope.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: maxUploadBytes }, (_request, body, done) => done(null, body));

    scope.get<{ Params: WorkspaceParams; Querystring: { path?: string } }>(
      base,
      {
        schema: {
          summary: "List a workspace's files",
          description: 'Every regular file under the folder, recursively; symlinks are not followed.',
          tags,
          params: workspaceParams,
          querystring: listQuery,
          response: { 200: workspaceListingView, ...errorResponses(400, 404) },
        },
      },
      async (request) => core.workspaceFiles.list(address(request), request.query.path ?? '.'),
    );

    scope.get<{ Params: WorkspaceParams }>(
      `${base}/*`,
      {
        schema: {
          summary: 'Download a file',
          tags,
          params: workspaceParams,
          response: { 200: { description: "The file's bytes.", content: fileContent }, ...errorResponses(400, 404) },
        },
      },
      async (request, reply) => {
        const file = await core.workspaceFiles.read(address(request), filePath(request));
        return reply.header('content-type', 'application/octet-stream').header('content-length', String(file.size)).send(file.stream);
      },
    );

    scope.put<{ Params: WorkspaceParams; Body: Buffer }>(
      `${base}/*`,
      {
        schema: {
          summary: 'Upload a file',
          description: `Creates or replaces the file, and its folders. The body is the raw file, at most ${maxUploadBytes} bytes, within the account's disk quota.`,
          tags,
          params: workspaceParams,
          response: { 200: workspaceWrittenView, ...errorResponses(400, 404, 413, 415) },
        },
        onRequest: checkUpload,
        config: { swaggerTransform: documentedBody(fileContent) },
      },
      async (request) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        return core.workspaceFiles.write(address(request), filePath(request), body);
      },
    );

    scope.delete<{ Params: WorkspaceParams }>(
      `${base}/*`,
      {
        schema: {
          summary: 'Delete a file',
          tags,
          params: workspaceParams,
          response: { 204: { type: 'null', description: 'Deleted.' }, ...errorResponses(400, 404) },
        },
      },
      async (request, reply) => {
        await core.workspaceFiles.delete(address(request), filePath(request));
        return reply.status(204).send();
      },
    );
  });
}
