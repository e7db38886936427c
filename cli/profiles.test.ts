import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError, UsageError } from './cli-error.js';
import { loadProfiles, profilesPath, saveProfile, selectProfile, type Profile } from './profiles.js';

const alice: Profile = {
  accountUrl: 'http://127.0.0.1:4100',
  agentUrl: 'http://127.0.0.1:4200',
  accountId: 'acc_alice',
  username: 'alice',
  secret: 'secret-alice',
};
const bob: Profile = { ...alice, accountId: 'acc_bob', username: 'bob', secret: 'secret-bob' };

let folder: string;
let path: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'harness-profiles-'));
  path = join(folder, 'config', 'harness', 'profiles.json');
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('profilesPath', () => {
  it('uses XDG_CONFIG_HOME when it is absolute', () => {
    expect(profilesPath({ XDG_CONFIG_HOME: '/x/config' }, '/home/u')).toBe('/x/config/harness/profiles.json');
  });

  it('falls back to ~/.config, also for a relative XDG_CONFIG_HOME', () => {
    expect(profilesPath({}, '/home/u')).toBe('/home/u/.config/harness/profiles.json');
    expect(profilesPath({ XDG_CONFIG_HOME: 'relative' }, '/home/u')).toBe('/home/u/.config/harness/profiles.json');
  });
});

describe('saveProfile', () => {
  it('creates the folder 0700 and the file 0600', async () => {
    await saveProfile(path, 'default', alice);
    expect((await stat(join(folder, 'config', 'harness'))).mode & 0o777).toBe(0o700);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('tightens an existing folder to 0700', async () => {
    await mkdir(join(folder, 'config', 'harness'), { recursive: true, mode: 0o755 });
    await chmod(join(folder, 'config', 'harness'), 0o755);
    await saveProfile(path, 'default', alice);
    expect((await stat(join(folder, 'config', 'harness'))).mode & 0o777).toBe(0o700);
  });

  it('keeps other profiles and replaces the named one', async () => {
    await saveProfile(path, 'default', alice);
    await saveProfile(path, 'work', bob);
    await saveProfile(path, 'default', { ...alice, secret: 'rotated' });
    expect(await loadProfiles(path)).toEqual({ default: { ...alice, secret: 'rotated' }, work: bob });
  });

  it('writes atomically: a complete file, mode 0600, and no temporary file left behind', async () => {
    await saveProfile(path, 'default', alice);
    await saveProfile(path, 'work', bob);
    expect(await readdir(join(folder, 'config', 'harness'))).toEqual(['profiles.json']);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ profiles: { default: alice, work: bob } });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('refuses a profile name that is not a plain word', async () => {
    await expect(saveProfile(path, '../x', alice)).rejects.toBeInstanceOf(UsageError);
    await expect(saveProfile(path, '__proto__', alice)).rejects.toBeInstanceOf(UsageError);
  });
});

describe('loadProfiles', () => {
  it('returns no profiles when the file does not exist', async () => {
    expect(await loadProfiles(path)).toEqual({});
  });

  it('names the file when it is not valid JSON', async () => {
    await mkdir(join(folder, 'config', 'harness'), { recursive: true });
    await writeFile(path, '{nope');
    await expect(loadProfiles(path)).rejects.toThrow(`${path} is not valid JSON`);
  });

  it('names the bad field when a profile is incomplete', async () => {
    await mkdir(join(folder, 'config', 'harness'), { recursive: true });
    await writeFile(path, JSON.stringify({ profiles: { default: { accountUrl: 'x' } } }));
    await expect(loadProfiles(path)).rejects.toThrow(/profiles\.default\.agentUrl/);
  });
});

describe('selectProfile', () => {
  it('selects a profile by name', async () => {
    await saveProfile(path, 'default', alice);
    await saveProfile(path, 'work', bob);
    expect(await selectProfile(path, 'work')).toEqual(bob);
    expect(await selectProfile(path, 'default')).toEqual(alice);
  });

  it('tells the user to run `harness account create` when there is no profile', async () => {
    const error = await selectProfile(path, 'default').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toBe(`no profile "default" in ${path}: create it with \`harness account create --username NAME --description TEXT\``);
  });

  it('for --profile nope, names the profile before the subcommand and offers a saved one', async () => {
    await saveProfile(path, 'default', alice);
    await expect(selectProfile(path, 'nope')).rejects.toThrow(
      `no profile "nope" in ${path} (saved profiles: default): use a saved one, e.g. \`harness account show\`, or create "nope" with \`harness --profile nope account create --username NAME --description TEXT\``,
    );
  });

  it('under npx, the commands start with npx harness and name a saved profile other than default', async () => {
    await saveProfile(path, 'demo', bob);
    await expect(selectProfile(path, 'default', { npm_command: 'exec' })).rejects.toThrow(
      `no profile "default" in ${path} (saved profiles: demo): use a saved one, e.g. \`npx harness --profile demo account show\`, or create "default" with \`npx harness account create --username NAME --description TEXT\``,
    );
  });

  it('does not treat inherited object keys as profiles', async () => {
    await saveProfile(path, 'default', alice);
    await expect(selectProfile(path, 'constructor')).rejects.toThrow(/no profile "constructor"/);
  });
});
