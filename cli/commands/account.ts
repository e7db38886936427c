import { Command } from 'commander';
import { createApiClient } from '../api-client.js';
import type { CliContext } from '../cli-context.js';
import { CliError } from '../cli-error.js';
import { commandHint } from '../command-hint.js';
import { formatFields, printJson, printText } from '../output.js';
import { parseServiceUrl, serviceUrlFromEnvironment } from '../parse-values.js';
import { checkProfileName, loadProfiles, profilesPath, saveProfile } from '../profiles.js';
import { commandOptions, openAccountSession, serveCommand, withJsonOption } from '../session.js';
import type { Account } from '../../client/index.js';

/** An account as the service shows it (never with its secret, except once at creation): the API contract's view. */
export type { Account };

export interface CreateAccountOptions {
  username: string;
  description: string;
  accountUrl: string;
  agentUrl: string;
  profile: string;
  showSecret?: boolean;
  force?: boolean;
  json?: boolean;
}

const accountFields = (account: Account): [string, string][] => [
  ['account', account.accountId],
  ['username', account.username],
  ['description', account.description],
  ['created', account.createdAt],
];

/** Creates an account and saves its secret in a profile, so later commands can use it. */
export async function createAccount(context: CliContext, options: CreateAccountOptions): Promise<void> {
  const path = profilesPath(context.env, context.homeDir);
  checkProfileName(options.profile);
  // Checked before creating: replacing a profile loses its secret, which cannot be shown again.
  const existing = (await loadProfiles(path))[options.profile];
  if (existing && !options.force) {
    throw new CliError(
      `profile "${options.profile}" already exists (account ${existing.username}); pick another with --profile NAME, or replace it with --force`,
    );
  }
  // A service with HARNESS_SIGNUP=admin creates accounts only for the admin secret; an operator
  // who has it in the environment signs up that way.
  const adminSecret = context.env.HARNESS_ADMIN_SECRET || undefined;
  const accountService = createApiClient({ baseUrl: options.accountUrl, serviceName: 'account', serveCommand: serveCommand(context), secret: adminSecret });
  const { secret, ...account } = await accountService.send<Account & { secret: string }>('POST', '/accounts', {
    body: { username: options.username, description: options.description },
  });
  try {
    await saveProfile(path, options.profile, {
      accountUrl: options.accountUrl,
      agentUrl: options.agentUrl,
      accountId: account.accountId,
      username: account.username,
      secret,
    });
  } catch (error) {
    // The secret exists nowhere else: hand it over rather than lose the account.
    printText(context.stderr, `harness: account ${account.username} was created; its secret, shown once: ${secret}`);
    throw new CliError(`could not save profile "${options.profile}" to ${path}: ${(error as Error).message}`, { cause: error });
  }
  const shownSecret = options.showSecret ? { secret } : {};
  if (options.json) {
    printJson(context.stdout, { ...account, profile: options.profile, profilesFile: path, ...shownSecret });
    return;
  }
  printText(context.stdout, formatFields(accountFields(account)));
  printText(context.stdout, `Saved as profile "${options.profile}" in ${path}. Try it: ${commandHint(context.env, options.profile)('account', 'show')}`);
  if (options.showSecret) printText(context.stdout, `secret: ${secret}\n(shown once; it is also in the profile)`);
}

/** Shows the profile's account, as the service knows it. */
export async function showAccount(context: CliContext, options: { profile: string; json?: boolean }): Promise<void> {
  const { accountService } = await openAccountSession(context, options.profile);
  const account = await accountService.send<Account>('GET', '/accounts/me');
  if (options.json) printJson(context.stdout, account);
  else printText(context.stdout, formatFields(accountFields(account)));
}

export function accountCommand(context: CliContext): Command {
  const create = withJsonOption(
    new Command('create')
      .description('create an account and save it as a profile')
      .requiredOption('--username <username>', '1-64 of A-Z a-z 0-9 _ . -')
      .requiredOption('--description <text>', 'what the account is for')
      .option('--account-url <url>', 'account service URL (env HARNESS_ACCOUNT_URL, else http://127.0.0.1:4100)', parseServiceUrl)
      .option('--agent-url <url>', 'agent service URL (env HARNESS_AGENT_URL, else http://127.0.0.1:4200)', parseServiceUrl)
      .option('--show-secret', 'also print the account secret, once')
      .option('--force', 'replace an existing profile of the same name'),
  ).action(async (_options: unknown, command: Command) => {
    const options = commandOptions<Omit<CreateAccountOptions, 'accountUrl' | 'agentUrl'> & { accountUrl?: string; agentUrl?: string }>(command);
    await createAccount(context, {
      ...options,
      accountUrl: options.accountUrl ?? serviceUrlFromEnvironment(context.env, 'HARNESS_ACCOUNT_URL', 'http://127.0.0.1:4100'),
      agentUrl: options.agentUrl ?? serviceUrlFromEnvironment(context.env, 'HARNESS_AGENT_URL', 'http://127.0.0.1:4200'),
    });
  });

  const show = withJsonOption(new Command('show').description("show the profile's account")).action(
    async (_options: unknown, command: Command) => {
      await showAccount(context, commandOptions(command));
    },
  );

  return new Command('account').description('create and show accounts').addCommand(create).addCommand(show);
}
