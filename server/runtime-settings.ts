import { resolve } from 'node:path';
import { stageFromEnvironment } from './core/infrastructure.js';

/** Process-level settings from the environment, resolved once at start. */
export interface RuntimeSettings {
  stage: string;
  dataDir: string;
  host: string;
  accountPort: number;
  agentPort: number;
  enableDirectApi: boolean;
}

function port(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) throw new Error(`${name} must be a port number from 0 to 65535 (got ${JSON.stringify(value)}).`);
  return parsed;
}

/** Parses a boolean switch: true/false/1/0/yes/no/on/off. */
export function booleanSetting(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  const lower = value.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(lower)) return true;
  if (['false', '0', 'no', 'off'].includes(lower)) return false;
  throw new Error(`${name} must be true or false (got ${JSON.stringify(value)}).`);
}

/** The data folder of a stage: `HARNESS_DATA_DIR`, else `.harness/<stage>` under the working folder. */
export function defaultDataDir(stage: string, environment: NodeJS.ProcessEnv = process.env): string {
  return resolve(environment.HARNESS_DATA_DIR || `.harness/${stage}`);
}

export function readRuntimeSettings(
  overrides: Partial<RuntimeSettings> = {},
  environment: NodeJS.ProcessEnv = process.env,
): RuntimeSettings {
  const stage = overrides.stage ?? stageFromEnvironment(environment);
  return {
    stage,
    dataDir: overrides.dataDir ? resolve(overrides.dataDir) : defaultDataDir(stage, environment),
    host: overrides.host ?? environment.HARNESS_HOST ?? '127.0.0.1',
    accountPort: overrides.accountPort ?? port('ACCOUNT_PORT', environment.ACCOUNT_PORT, 4100),
    agentPort: overrides.agentPort ?? port('AGENT_PORT', environment.AGENT_PORT, 4200),
    enableDirectApi: overrides.enableDirectApi ?? booleanSetting('ENABLE_DIRECT_API', environment.ENABLE_DIRECT_API, true),
  };
}

/**
 * The workspace bucket's folder: `HARNESS_BUCKET_DIR` (replicas point it at one shared
 * filesystem), else the bucket's name under the data folder.
 */
export function bucketFolderFor(dataDir: string, bucketName: string, environment: NodeJS.ProcessEnv = process.env): string {
  return environment.HARNESS_BUCKET_DIR ? resolve(environment.HARNESS_BUCKET_DIR) : `${dataDir}/${bucketName}`;
}
