/** The PATH every bash call gets, inside bubblewrap or not. */
export const sandboxPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The environment of a bash call: nothing from the service except the allow-listed names
 * (the service's own secrets live in its environment), plus a minimal PATH, LANG and HOME.
 * HOME is always the workspace so a program never writes into the service user's home.
 */
export function sandboxEnvironment(allowList: readonly string[], source: NodeJS.ProcessEnv, home: string): Record<string, string> {
  const environment: Record<string, string> = { PATH: sandboxPath, LANG: 'C.UTF-8' };
  for (const name of allowList) {
    const value = source[name];
    if (value !== undefined) environment[name] = value;
  }
  environment.HOME = home;
  return environment;
}
