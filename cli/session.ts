import type { Command } from 'commander';
import { createApiClient, type ApiClient } from './api-client.js';
import type { CliContext } from './cli-context.js';
import { commandHint } from './command-hint.js';
import { profilesPath, selectProfile, type Profile } from './profiles.js';

/** Options every command sees: the global `--profile` and the command's own `--json`. */
export interface CommonOptions {
  profile: string;
  json?: boolean;
}

/** Adds the `--json` flag every command takes. */
export function withJsonOption(command: Command): Command {
  return command.option('--json', 'print machine-readable JSON on stdout');
}

/** The command's options merged with the global ones (`--profile`). */
export function commandOptions<T extends object>(command: Command): T & CommonOptions {
  return command.optsWithGlobals<T & CommonOptions>();
}

type ServiceName = 'account' | 'agent';

/** The selected profile and a client for one of its services, signed in with the profile's account secret. */
async function openServiceClient(context: CliContext, profileName: string, serviceName: ServiceName): Promise<{ profile: Profile; client: ApiClient }> {
  const profile = await selectProfile(profilesPath(context.env, context.homeDir), profileName, context.env);
  const baseUrl = serviceName === 'account' ? profile.accountUrl : profile.agentUrl;
  return { profile, client: createApiClient({ baseUrl, serviceName, secret: profile.secret, serveCommand: serveCommand(context) }) };
}

/** A selected profile and a client for the account service, signed in as its account. */
export interface AccountSession {
  profile: Profile;
  accountService: ApiClient;
}

/** `harness serve` as this user runs it, for the message when a service cannot be reached. */
export function serveCommand(context: CliContext): string {
  return commandHint(context.env)('serve');
}

export async function openAccountSession(context: CliContext, profileName: string): Promise<AccountSession> {
  const { profile, client } = await openServiceClient(context, profileName, 'account');
  return { profile, accountService: client };
}

/** A selected profile and a client for the agent service, signed in as its account. */
export interface AgentSession {
  profile: Profile;
  agentService: ApiClient;
}

export async function openAgentSession(context: CliContext, profileName: string): Promise<AgentSession> {
  const { profile, client } = await openServiceClient(context, profileName, 'agent');
  return { profile, agentService: client };
}
