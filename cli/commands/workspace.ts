import { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { formatTable, printJson, printText } from '../output.js';
import { profilesPath, selectProfile } from '../profiles.js';
import { commandOptions, serveCommand, withJsonOption, type CommonOptions } from '../session.js';
import { WorkspaceClient } from '../workspace/workspace-client.js';
import { pullFiles, pushFiles, type TransferredFile } from '../workspace/workspace-transfer.js';

async function openWorkspace(context: CliContext, agentId: string, workspace: string, options: CommonOptions): Promise<WorkspaceClient> {
  const profile = await selectProfile(profilesPath(context.env, context.homeDir), options.profile, context.env);
  return new WorkspaceClient({ accountUrl: profile.accountUrl, secret: profile.secret, agentId, workspace, serveCommand: serveCommand(context) });
}

function printTransfers(context: CliContext, verb: string, files: TransferredFile[], json: boolean | undefined): void {
  if (json) return printJson(context.stdout, { files });
  const total = files.reduce((sum, file) => sum + file.bytes, 0);
  for (const file of files) printText(context.stdout, `${verb} ${file.path} (${file.bytes} bytes)`);
  printText(context.stdout, `${files.length} file${files.length === 1 ? '' : 's'}, ${total} bytes.`);
}

export async function listWorkspace(context: CliContext, agentId: string, workspace: string, folder: string | undefined, options: CommonOptions): Promise<void> {
  const client = await openWorkspace(context, agentId, workspace, options);
  const listing = await client.list(folder);
  if (options.json) return printJson(context.stdout, listing);
  if (listing.files.length === 0) return printText(context.stdout, `Workspace ${workspace} has no files${folder ? ` under ${folder}` : ''}.`);
  const rows = listing.files.map((file) => [file.path, String(file.size), file.modifiedAt]);
  printText(context.stdout, formatTable(['PATH', 'SIZE', 'MODIFIED'], rows));
  if (listing.truncated) printText(context.stdout, '(more files were left out)');
}

export async function pushWorkspace(context: CliContext, agentId: string, workspace: string, paths: string[], options: CommonOptions & { to?: string }): Promise<void> {
  const client = await openWorkspace(context, agentId, workspace, options);
  printTransfers(context, 'pushed', await pushFiles(client, paths, options.to), options.json);
}

export async function pullWorkspace(context: CliContext, agentId: string, workspace: string, paths: string[], options: CommonOptions & { out: string }): Promise<void> {
  const client = await openWorkspace(context, agentId, workspace, options);
  printTransfers(context, 'pulled', await pullFiles(client, paths, options.out), options.json);
}

/** `harness workspace push|pull|ls`: files in and out of an agent's workspace in the filesystem bucket. */
export function workspaceCommand(context: CliContext): Command {
  const ls = withJsonOption(
    new Command('ls').description("list the files of an agent's workspace").argument('<agentId>').argument('<workspace>').argument('[path]', 'folder or file in the workspace'),
  ).action(async (agentId: string, workspace: string, folder: string | undefined, _options: unknown, command: Command) =>
    listWorkspace(context, agentId, workspace, folder, commandOptions(command)),
  );
  const push = withJsonOption(
    new Command('push')
      .description('upload local files or folders into a workspace (folders recursively, like cp -r)')
      .argument('<agentId>')
      .argument('<workspace>')
      .argument('<paths...>', 'local files or folders')
      .option('--to <folder>', 'folder in the workspace to put them in (default: its root)'),
  ).action(async (agentId: string, workspace: string, paths: string[], _options: unknown, command: Command) =>
    pushWorkspace(context, agentId, workspace, paths, commandOptions<{ to?: string }>(command)),
  );
  const pull = withJsonOption(
    new Command('pull')
      .description('download workspace files (all, or those under the given paths), keeping their paths')
      .argument('<agentId>')
      .argument('<workspace>')
      .argument('[paths...]', 'files or folders in the workspace (default: everything)')
      .option('--out <folder>', 'local folder to write into', '.'),
  ).action(async (agentId: string, workspace: string, paths: string[], _options: unknown, command: Command) =>
    pullWorkspace(context, agentId, workspace, paths, commandOptions<{ out: string }>(command)),
  );
  return new Command('workspace').description("move files in and out of agents' workspaces").addCommand(ls).addCommand(push).addCommand(pull);
}
