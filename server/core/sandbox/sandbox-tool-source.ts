import type { ToolSource } from '../tools/build-tools.js';
import { accountBucketFolder } from './account-bucket.js';
import { validateSandboxSections } from './agent-sandbox-config.js';
import type { BubblewrapStatus } from './bubblewrap-probe.js';
import { buildSandboxToolSet } from './sandbox-tool-set.js';

export interface SandboxSourceOptions {
  /** Host folder of the filesystem bucket (`<data folder>/<filesystemBucketName>`); unset, workspaces cannot be used. */
  bucketFolder?: string;
  /** What the probe at service start found. */
  bubblewrap: BubblewrapStatus;
  /** Where bash's allow-listed variables come from; default process.env. */
  environment?: NodeJS.ProcessEnv;
}

/**
 * Spec rule 2: the sandbox tools of a turn, from `config.sandbox` and `config.workspace`
 * only. Workspace paths are relative to the account's folder in the bucket.
 */
export function sandboxToolSource(options: SandboxSourceOptions): ToolSource {
  return {
    name: 'config.sandbox and config.workspace',
    build(config, context) {
      const { sandbox, workspace } = validateSandboxSections(config);
      if (!sandbox && !workspace) return {};
      if (workspace && Object.keys(workspace).length > 0 && !options.bucketFolder) {
        throw new Error('config.workspace needs the filesystem bucket, and this service was started without a bucket folder.');
      }
      return buildSandboxToolSet({
        config: { sandbox, workspace },
        bucketFolder: accountBucketFolder(options.bucketFolder ?? '', context.accountId),
        bubblewrap: options.bubblewrap,
        logger: context.logger,
        environment: options.environment,
      });
    },
  };
}
