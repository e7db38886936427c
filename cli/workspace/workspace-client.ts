import { request } from 'undici';
import { connectionError, errorFromReply, joinUrl } from '../api-client.js';
import { CliError } from '../cli-error.js';

/** A file in a workspace, as the account service lists it. */
export interface RemoteFile {
  path: string;
  size: number;
  modifiedAt: string;
}

export interface RemoteListing {
  agentId: string;
  workspace: string;
  path: string;
  files: RemoteFile[];
  truncated: boolean;
}

export interface WorkspaceClientOptions {
  accountUrl: string;
  secret: string;
  agentId: string;
  workspace: string;
  /** Named when the account service cannot be reached (see `ApiClientOptions.serveCommand`). */
  serveCommand?: string;
}

/** A workspace path as URL segments: each segment encoded, the slashes kept. */
function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/**
 * The workspace file routes of the account service. Uploads and downloads are raw bytes,
 * which the JSON `ApiClient` does not carry, so this talks to undici itself and reuses the
 * client's error mapping.
 */
export class WorkspaceClient {
  private readonly base: string;

  constructor(private readonly options: WorkspaceClientOptions) {
    this.base = `/accounts/me/agents/${encodeURIComponent(options.agentId)}/workspaces/${encodeURIComponent(options.workspace)}/files`;
  }

  private async send(method: 'GET' | 'PUT' | 'DELETE', path: string, body?: Buffer): Promise<Buffer> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.secret}` };
    if (body) headers['content-type'] = 'application/octet-stream';
    let reply: Awaited<ReturnType<typeof request>>;
    try {
      reply = await request(joinUrl(this.options.accountUrl, path), { method, headers, body });
    } catch (error) {
      throw connectionError(error, { baseUrl: this.options.accountUrl, serviceName: 'account', serveCommand: this.options.serveCommand });
    }
    const bytes = Buffer.from(await reply.body.arrayBuffer());
    if (reply.statusCode >= 400) {
      const text = bytes.toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      throw errorFromReply(reply.statusCode, parsed, text, method, path);
    }
    return bytes;
  }

  async list(path?: string): Promise<RemoteListing> {
    const query = path && path !== '.' ? `?path=${encodeURIComponent(path)}` : '';
    const bytes = await this.send('GET', `${this.base}${query}`);
    try {
      return JSON.parse(bytes.toString('utf8')) as RemoteListing;
    } catch (error) {
      throw new CliError('the account service sent a workspace listing that is not JSON', { cause: error });
    }
  }

  download(path: string): Promise<Buffer> {
    return this.send('GET', `${this.base}/${encodePath(path)}`);
  }

  async upload(path: string, content: Buffer): Promise<{ path: string; bytes: number }> {
    const bytes = await this.send('PUT', `${this.base}/${encodePath(path)}`, content);
    return JSON.parse(bytes.toString('utf8')) as { path: string; bytes: number };
  }

  async remove(path: string): Promise<void> {
    await this.send('DELETE', `${this.base}/${encodePath(path)}`);
  }
}
