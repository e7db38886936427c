import type { WorkspaceFile, WorkspaceListing } from '../../client/index.js';
import { type ApiClient, createApiClient } from '../api-client.js';

/** A file in a workspace, as the account service lists it. */
export type RemoteFile = WorkspaceFile;

export type RemoteListing = WorkspaceListing;

export interface WorkspaceClientOptions {
  accountUrl: string;
  secret: string;
  agentId: string;
  workspace: string;
  /** Named when the account service cannot be reached (see `ApiClientOptions.serveCommand`). */
  serveCommand?: string;
}

/** One workspace's files on the account service, through `harness/client`'s workspace calls (raw bytes up and down). */
export class WorkspaceClient {
  private readonly service: ApiClient;

  constructor(private readonly options: WorkspaceClientOptions) {
    this.service = createApiClient({ baseUrl: options.accountUrl, serviceName: 'account', secret: options.secret, ...(options.serveCommand ? { serveCommand: options.serveCommand } : {}) });
  }

  list(path?: string): Promise<RemoteListing> {
    return this.service.call((client) => client.workspace.list(this.options.agentId, this.options.workspace, path));
  }

  async download(path: string): Promise<Buffer> {
    return Buffer.from(await this.service.call((client) => client.workspace.download(this.options.agentId, this.options.workspace, path)));
  }

  upload(path: string, content: Buffer): Promise<{ path: string; bytes: number }> {
    return this.service.call((client) => client.workspace.upload(this.options.agentId, this.options.workspace, path, content));
  }

  async remove(path: string): Promise<void> {
    await this.service.call((client) => client.workspace.delete(this.options.agentId, this.options.workspace, path));
  }
}
