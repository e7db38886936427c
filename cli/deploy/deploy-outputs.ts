import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { defineInfrastructure, type TableKey } from '../../server/core/infrastructure.js';
import { writeFileAtomically } from '../atomic-write.js';
import { CliError } from '../cli-error.js';
import { commandHint } from '../command-hint.js';
import { formatTable } from '../output.js';
import type { DeployInputs } from './deploy-inputs.js';
import type { ReplicaInputs } from './replica-inputs.js';
import type { StageFolder } from './stage-folder.js';

/** One replica of the stage: a `harness serve` process with its two URLs. */
export interface ReplicaOutputs {
  /** 1-based; replica 1 runs on the stage folder, replica N on `<stage>/replica-N`. */
  index: number;
  accountServiceUrl: string;
  agentServiceUrl: string;
  pid: number;
}

/** Where each runtime secret of the stage comes from; the values are never in the outputs. */
export type SecretSource = 'environment' | 'generated';

/**
 * The deploy outputs: the service URLs, every table name and the bucket name,
 * plus the rest of the infrastructure definition. Written to `outputs.json` in the stage
 * folder; every name comes from `defineInfrastructure(stage)`.
 */
export interface DeployOutputs {
  stage: string;
  target: 'local';
  region: string;
  accountServiceUrl: string;
  agentServiceUrl: string;
  tables: Record<TableKey, string>;
  filesystemBucketName: string;
  functions: { accountService: string; agentService: string };
  tags: Record<string, string>;
  /** The names of the runtime secrets (`harness secrets show` prints the values). */
  secretNames: { adminSecret: string; configEncryptionSecret: string };
  secretSources: { adminSecret: SecretSource; configEncryptionSecret: SecretSource };
  awsProfile: string | null;
  inputs: {
    enableDirectApi: boolean;
    enableWebsocket: boolean | null;
    /** Without user information. */
    natsUrl: string | null;
    natsTokenSet: boolean;
    /** `HARNESS_DATABASE_URL` without its password; null: lowdb files in the stage folder. */
    databaseUrl: string | null;
    replicas: number;
  };
  /** Local target: where the stage lives and which process serves it. */
  stageFolder: string;
  bucketFolder: string;
  /** Replica 1's process (the top-level URLs are replica 1's too). */
  pid: number;
  /** Every replica, in order. */
  replicas: ReplicaOutputs[];
  deployedAt: string;
}

export interface OutputsSource {
  folder: StageFolder;
  inputs: DeployInputs;
  urls: { accountUrl: string; agentUrl: string };
  pid: number;
  environment: Record<string, string | undefined>;
  /** Default: one replica, `urls` and `pid`, on lowdb unless the environment names a database. */
  replicaInputs?: ReplicaInputs;
  replicas?: ReplicaOutputs[];
}

export function buildDeployOutputs({ folder, inputs, urls, pid, environment, replicaInputs, replicas }: OutputsSource): DeployOutputs {
  const infrastructure = defineInfrastructure(inputs.stage);
  const source = (name: string): SecretSource => (environment[name] ? 'environment' : 'generated');
  return {
    stage: infrastructure.stage,
    target: 'local',
    region: infrastructure.region,
    accountServiceUrl: urls.accountUrl,
    agentServiceUrl: urls.agentUrl,
    tables: { ...infrastructure.tables },
    filesystemBucketName: infrastructure.filesystemBucketName,
    functions: { ...infrastructure.functions },
    tags: { ...infrastructure.tags },
    secretNames: { ...infrastructure.secrets },
    secretSources: { adminSecret: source('HARNESS_ADMIN_SECRET'), configEncryptionSecret: source('HARNESS_CONFIG_ENCRYPTION_SECRET') },
    awsProfile: inputs.awsProfile,
    inputs: {
      enableDirectApi: inputs.enableDirectApi,
      enableWebsocket: inputs.enableWebsocket,
      natsUrl: inputs.natsUrl,
      natsTokenSet: inputs.natsTokenSet,
      databaseUrl: replicaInputs?.databaseUrl ?? null,
      replicas: replicaInputs?.replicas ?? 1,
    },
    stageFolder: folder.path,
    bucketFolder: environment.HARNESS_BUCKET_DIR ? resolve(environment.HARNESS_BUCKET_DIR) : folder.bucketFolder,
    pid,
    replicas: replicas ?? [{ index: 1, accountServiceUrl: urls.accountUrl, agentServiceUrl: urls.agentUrl, pid }],
    deployedAt: new Date().toISOString(),
  };
}

export async function writeDeployOutputs(folder: StageFolder, outputs: DeployOutputs): Promise<void> {
  await writeFileAtomically(folder.outputsFile, `${JSON.stringify(outputs, null, 2)}\n`, 0o644);
}

/**
 * The outputs of the stage's last deploy; a clear error when it was never deployed, whose
 * deploy command starts as `env` says (`harness` or `npx harness`).
 */
export async function readDeployOutputs(folder: StageFolder, env: Record<string, string | undefined> = {}): Promise<DeployOutputs> {
  let text: string;
  try {
    text = await readFile(folder.outputsFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new CliError(`Stage ${folder.stage} has no outputs (${folder.outputsFile} does not exist): run ${commandHint(env)('deploy', '--stage', folder.stage)} first.`);
    throw error;
  }
  try {
    return JSON.parse(text) as DeployOutputs;
  } catch {
    throw new CliError(`${folder.outputsFile} is not valid JSON: deploy the stage again.`);
  }
}

const flag = (value: boolean | null, fallback: string): string => (value === null ? fallback : String(value));

/** The outputs as a two-column table. */
export function formatDeployOutputs(outputs: DeployOutputs): string {
  const rows: [string, string][] = [
    ['stage', outputs.stage],
    ['target', outputs.target],
    ['region', outputs.region],
    ['accountServiceUrl', outputs.accountServiceUrl],
    ['agentServiceUrl', outputs.agentServiceUrl],
    ...Object.entries(outputs.tables).map(([key, name]): [string, string] => [`table ${key}`, name]),
    ['filesystemBucketName', outputs.filesystemBucketName],
    ...Object.entries(outputs.functions).map(([key, name]): [string, string] => [`function ${key}`, name]),
    ...Object.entries(outputs.secretNames).map(([key, name]): [string, string] => [`secret ${key}`, `${name} (${outputs.secretSources[key as keyof DeployOutputs['secretSources']]})`]),
    ...Object.entries(outputs.tags).map(([key, value]): [string, string] => [`tag ${key}`, value]),
    ['awsProfile', outputs.awsProfile ?? '(not set)'],
    ['directApi', String(outputs.inputs.enableDirectApi)],
    ['websocket', flag(outputs.inputs.enableWebsocket, 'default')],
    ['natsUrl', outputs.inputs.natsUrl ?? '(embedded nats-server)'],
    ['databaseUrl', outputs.inputs.databaseUrl ?? '(lowdb files in the stage folder)'],
    ['stageFolder', outputs.stageFolder],
    ['pid', String(outputs.pid)],
    // Older outputs files have no replicas; a stage of one shows nothing more than before.
    ...((outputs.replicas ?? []).length > 1
      ? outputs.replicas.map((replica): [string, string] => [`replica ${replica.index}`, `${replica.accountServiceUrl}  ${replica.agentServiceUrl}  pid ${replica.pid}`])
      : []),
    ['deployedAt', outputs.deployedAt],
  ];
  return formatTable(['output', 'value'], rows);
}
