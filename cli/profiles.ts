import { chmod, mkdir, readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomically } from './atomic-write.js';
import { CliError, UsageError } from './cli-error.js';
import { commandHint } from './command-hint.js';

/**
 * Saved profiles: which services to talk to and as which account. They live in
 * `$XDG_CONFIG_HOME/harness/profiles.json` (default `~/.config/harness/`), the folder 0700
 * and the file 0600, because each profile holds an account secret.
 */
const profileSchema = z.object({
  accountUrl: z.string(),
  agentUrl: z.string(),
  accountId: z.string(),
  username: z.string(),
  secret: z.string(),
});

const profilesFileSchema = z.object({ profiles: z.record(z.string(), profileSchema) });

export type Profile = z.infer<typeof profileSchema>;

const profileNamePattern = /^[A-Za-z0-9_.-]{1,64}$/;

/** Where profiles are stored for this environment. */
export function profilesPath(env: Record<string, string | undefined>, homeDir: string): string {
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const configHome = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(homeDir, '.config');
  return join(configHome, 'harness', 'profiles.json');
}

export function checkProfileName(name: string): string {
  if (!profileNamePattern.test(name) || name === '__proto__') {
    throw new UsageError(`invalid profile name "${name}": use 1-64 letters, digits, "_", "." or "-"`);
  }
  return name;
}

/** All saved profiles by name; an absent file means none yet. */
export async function loadProfiles(path: string): Promise<Record<string, Profile>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${path} is not valid JSON; fix or remove it`, { cause: error });
  }
  const result = profilesFileSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new CliError(`${path} is not a profiles file (${issue ? `${issue.path.join('.')}: ${issue.message}` : 'bad shape'}); fix or remove it`);
  }
  return result.data.profiles;
}

/** Adds or replaces one profile, keeping the others. */
export async function saveProfile(path: string, name: string, profile: Profile): Promise<void> {
  checkProfileName(name);
  const profiles = await loadProfiles(path);
  profiles[name] = profile;
  const folder = join(path, '..');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  // mkdir leaves an existing folder's mode alone; this folder holds secrets, so tighten it.
  await chmod(folder, 0o700);
  await writeFileAtomically(path, `${JSON.stringify({ profiles }, null, 2)}\n`, 0o600);
}

/**
 * The named profile, or an error whose commands create it or pick a saved one; `env` decides
 * how those commands start (`harness` or `npx harness`).
 */
export async function selectProfile(path: string, name: string, env: Record<string, string | undefined> = {}): Promise<Profile> {
  checkProfileName(name);
  const profiles = await loadProfiles(path);
  const profile = Object.hasOwn(profiles, name) ? profiles[name] : undefined;
  if (profile) return profile;
  const create = `\`${commandHint(env, name)('account', 'create', '--username', 'NAME', '--description', 'TEXT')}\``;
  const others = Object.keys(profiles);
  const [firstOther] = others;
  if (firstOther === undefined) throw new CliError(`no profile "${name}" in ${path}: create it with ${create}`);
  const useSaved = `\`${commandHint(env, firstOther)('account', 'show')}\``;
  throw new CliError(`no profile "${name}" in ${path} (saved profiles: ${others.join(', ')}): use a saved one, e.g. ${useSaved}, or create "${name}" with ${create}`);
}
