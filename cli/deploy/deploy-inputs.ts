import { assertStageName, stageFromEnvironment } from '../../server/core/infrastructure.js';
import { natsServerList, natsUrlWithoutCredentials } from '../../server/nats/nats-connection.js';
import { UsageError } from '../cli-error.js';

/**
 * The deployment inputs: environment variables read once by `harness deploy`,
 * checked before anything runs, and handed to the services through their environment.
 */
export interface DeployInputs {
  stage: string;
  /** `AWS_PROFILE`: recorded in the outputs; only a cloud target would use it. */
  awsProfile: string | null;
  /** `ENABLE_DIRECT_API` (default true). */
  enableDirectApi: boolean;
  /** `ENABLE_WEBSOCKET`; `null` when unset (the service's default: on). */
  enableWebsocket: boolean | null;
  /** `NATS_URL` without any user information (so it can be printed), or null. */
  natsUrl: string | null;
  /** Whether `NATS_TOKEN` is set; the token itself is never recorded. */
  natsTokenSet: boolean;
  accountPort: number;
  agentPort: number;
}

export interface DeployInputOverrides {
  stage?: string;
  accountPort?: number;
  agentPort?: number;
}

const minimumSecretLength = 32;

function booleanInput(name: string, value: string | undefined): boolean | null {
  if (value === undefined || value.trim() === '') return null;
  const lower = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(lower)) return true;
  if (['false', '0', 'no', 'off'].includes(lower)) return false;
  throw new UsageError(`${name} must be true or false (got ${JSON.stringify(value)}).`);
}

function portInput(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port > 65_535) throw new UsageError(`${name} must be a port number from 0 to 65535 (got ${JSON.stringify(value)}).`);
  return port;
}

/** `NATS_URL` (one server, or a cluster's comma-separated; `host:port` is `nats://host:port`) without user information. */
function natsUrlInput(value: string | undefined): string | null {
  if (value === undefined || natsServerList(value).length === 0) return null;
  try {
    return natsUrlWithoutCredentials(value);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * Default ports per stage, so two stages deployed side by side do not collide: `local` gets
 * the contract's 4100/4200, any other stage a stable pair in 4101-4199 / 4201-4299.
 */
export function defaultPorts(stage: string): { accountPort: number; agentPort: number } {
  if (stage === 'local') return { accountPort: 4100, agentPort: 4200 };
  let hash = 0x811c9dc5;
  for (const character of stage) hash = Math.imul(hash ^ character.charCodeAt(0), 0x01000193) >>> 0;
  const offset = 1 + (hash % 99);
  return { accountPort: 4100 + offset, agentPort: 4200 + offset };
}

/** Reads and checks the inputs; every problem is a `UsageError` naming the variable. */
export function readDeployInputs(environment: Record<string, string | undefined>, overrides: DeployInputOverrides = {}): DeployInputs {
  const stage = overrides.stage ?? stageFromEnvironment(environment);
  try {
    assertStageName(stage);
  } catch (error) {
    throw new UsageError(overrides.stage === undefined ? (error as Error).message : (error as Error).message.replace('SST_STAGE', '--stage'));
  }
  const enableDirectApi = booleanInput('ENABLE_DIRECT_API', environment.ENABLE_DIRECT_API) ?? true;
  const enableWebsocket = booleanInput('ENABLE_WEBSOCKET', environment.ENABLE_WEBSOCKET);
  const natsUrl = natsUrlInput(environment.NATS_URL);
  const natsTokenSet = Boolean(environment.NATS_TOKEN);
  if (natsTokenSet && /\s/.test(environment.NATS_TOKEN ?? '')) throw new UsageError('NATS_TOKEN must not contain white space.');
  for (const name of ['HARNESS_ADMIN_SECRET', 'HARNESS_CONFIG_ENCRYPTION_SECRET']) {
    const value = environment[name];
    if (value !== undefined && value.length < minimumSecretLength) throw new UsageError(`${name} must be at least ${minimumSecretLength} characters long.`);
  }
  const awsProfile = environment.AWS_PROFILE?.trim() || null;
  if (awsProfile !== null && !/^[\w.+@=,-]+$/.test(awsProfile)) throw new UsageError(`AWS_PROFILE is not a valid profile name (got ${JSON.stringify(awsProfile)}).`);
  const defaults = defaultPorts(stage);
  const accountPort = overrides.accountPort ?? portInput('ACCOUNT_PORT', environment.ACCOUNT_PORT) ?? defaults.accountPort;
  const agentPort = overrides.agentPort ?? portInput('AGENT_PORT', environment.AGENT_PORT) ?? defaults.agentPort;
  if (accountPort !== 0 && accountPort === agentPort) throw new UsageError(`The account and agent services need different ports (both are ${accountPort}).`);
  return { stage, awsProfile, enableDirectApi, enableWebsocket, natsUrl, natsTokenSet, accountPort, agentPort };
}
