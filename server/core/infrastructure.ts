/**
 * The infrastructure definition: the one source of truth for resource names. Storage, the
 * service entry and the deploy wrapper read names only from here, and every name carries the
 * stage, so two stages never share a table, a bucket or a secret.
 */
export const applicationName = 'harness';

/** The logical tables. Later features add theirs here, and nowhere else. */
export const tableKeys = ['accounts', 'agents', 'conversations', 'asyncToolResults', 'cronJobs', 'events', 'channelDeliveries', 'webhookDeliveries', 'usage', 'conversationInbox', 'idempotencyKeys', 'memoryNotes'] as const;
export type TableKey = (typeof tableKeys)[number];

export interface InfrastructureDefinition {
  stage: string;
  region: string;
  /** Physical table names, e.g. `harness-local-accounts`. */
  tables: Record<TableKey, string>;
  filesystemBucketName: string;
  /** Names of the two runtime secrets (service-wide, per stage). */
  secrets: { adminSecret: string; configEncryptionSecret: string };
  /** The deployable units. */
  functions: { accountService: string; agentService: string };
  tags: Record<string, string>;
}

const stagePattern = /^[a-z0-9][a-z0-9-]{0,31}$/;

/** Throws when a stage name cannot be part of a resource name. */
export function assertStageName(stage: string): void {
  if (!stagePattern.test(stage)) {
    throw new Error(`SST_STAGE must be 1-32 characters of a-z, 0-9 and "-", starting with a letter or digit (got ${JSON.stringify(stage)}).`);
  }
}

function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

export function defineInfrastructure(stage: string, region = 'local'): InfrastructureDefinition {
  assertStageName(stage);
  const prefix = `${applicationName}-${stage}`;
  const tables = Object.fromEntries(tableKeys.map((key) => [key, `${prefix}-${kebab(key)}`])) as Record<TableKey, string>;
  return {
    stage,
    region,
    tables,
    filesystemBucketName: `${prefix}-filesystem`,
    secrets: { adminSecret: `${prefix}-admin-secret`, configEncryptionSecret: `${prefix}-config-encryption-secret` },
    functions: { accountService: `${prefix}-account-service`, agentService: `${prefix}-agent-service` },
    tags: { application: applicationName, stage },
  };
}

/** The stage named by `SST_STAGE`, `local` by default. */
export function stageFromEnvironment(environment: NodeJS.ProcessEnv = process.env): string {
  return environment.SST_STAGE?.trim() || 'local';
}
