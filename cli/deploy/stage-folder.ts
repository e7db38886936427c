import { join, resolve } from 'node:path';
import { assertStageName, defineInfrastructure, stageFromEnvironment } from '../../server/core/infrastructure.js';
import { generatedSecretsFileName } from '../../server/core/secrets/runtime-secrets.js';
import { UsageError } from '../cli-error.js';

/**
 * The folder of a locally deployed stage, `.harness/<stage>/`: it is the service's data
 * folder (lowdb tables, generated secrets, the lock) and also holds what the deploy wrapper
 * keeps about the running services (pid, log, address, outputs). `HARNESS_STAGES_DIR`
 * moves the root, so tests deploy into a temporary folder.
 */
export interface StageFolder {
  stage: string;
  /** `.harness/<stage>`, absolute; the `--data-dir` the services get. */
  path: string;
  /** `{pid, startedAt}` of the services the last deploy started. */
  pidFile: string;
  /** The services' stdout and stderr (JSON log lines), appended by every deploy. */
  logFile: string;
  /** What `harness serve --json` prints once it listens: `{accountUrl, agentUrl}`. */
  addressFile: string;
  /** The deploy outputs, as `harness outputs` prints them. */
  outputsFile: string;
  /** Generated runtime secrets (written by the service itself, mode 0600). */
  secretsFile: string;
  /** The service's data-folder lock (`{pid, host, startedAt}`). */
  lockFile: string;
  /** The local stand-in for the filesystem bucket, named by `filesystemBucketName`. */
  bucketFolder: string;
}

/** The root that holds one folder per stage: `HARNESS_STAGES_DIR`, else `.harness` in the working folder. */
export function stagesRoot(environment: Record<string, string | undefined>, workingFolder: string = process.cwd()): string {
  return resolve(workingFolder, environment.HARNESS_STAGES_DIR || '.harness');
}

export function stageFolder(root: string, stage: string): StageFolder {
  const infrastructure = defineInfrastructure(stage);
  const path = join(root, stage);
  return {
    stage,
    path,
    pidFile: join(path, 'service.pid'),
    logFile: join(path, 'service.log'),
    addressFile: join(path, 'service-address.json'),
    outputsFile: join(path, 'outputs.json'),
    secretsFile: join(path, generatedSecretsFileName),
    lockFile: join(path, 'service.lock'),
    bucketFolder: join(path, infrastructure.filesystemBucketName),
  };
}

/** The folder of the stage named by `--stage`, else `SST_STAGE`, else `local`; a bad name is a usage error. */
export function selectStageFolder(environment: Record<string, string | undefined>, stageOption: string | undefined): StageFolder {
  const stage = stageOption ?? stageFromEnvironment(environment);
  try {
    assertStageName(stage);
  } catch (error) {
    throw new UsageError(stageOption === undefined ? (error as Error).message : (error as Error).message.replace('SST_STAGE', '--stage'));
  }
  return stageFolder(stagesRoot(environment), stage);
}
