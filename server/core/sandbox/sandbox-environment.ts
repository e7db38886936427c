import { isServiceVariable } from './sandbox-settings.js';

/** The PATH every bash call gets, inside bubblewrap or not. */
export const sandboxPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The environment of a bash call: nothing from the service except the names the agent asks
 * for that the operator also lets through (the service's own secrets live in its
 * environment), plus a minimal PATH, LANG and HOME. `HARNESS_*` and `NATS_*` never pass, even
 * when both lists name them. HOME is always the workspace so a program never writes into
 * the service user's home.
 */
export function sandboxEnvironment(
  requested: readonly string[],
  operatorAllowed: readonly string[],
  source: NodeJS.ProcessEnv,
  home: string,
): Record<string, string> {
  const environment: Record<string, string> = { PATH: sandboxPath, LANG: 'C.UTF-8' };
  const allowed = new Set(operatorAllowed);
  for (const name of requested) {
    if (!allowed.has(name) || isServiceVariable(name)) continue;
    const value = source[name];
    if (value !== undefined) environment[name] = value;
  }
  environment.HOME = home;
  return environment;
}
