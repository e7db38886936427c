import { validateAgentConfigSections } from '../agent-config/agent-config-sections.js';
import type { ToolSource } from '../tools/build-tools.js';
import { buildAgentSandboxTools } from './agent-sandbox-tools.js';
import { accountBucketFolder } from './account-bucket.js';
import type { BubblewrapStatus } from './bubblewrap-probe.js';
import { DiskQuota } from './disk-quota.js';
import type { CgroupSupport } from './sandbox-cgroups.js';
import { defaultSandboxSettings, type SandboxSettings } from './sandbox-settings.js';

export interface SandboxSourceOptions {
  /** Host folder of the filesystem bucket (`<data folder>/<filesystemBucketName>`); unset, workspaces cannot be used. */
  bucketFolder?: string;
  /** What the probe at service start found. */
  bubblewrap: BubblewrapStatus;
  /** Where bash's allow-listed variables come from; default process.env. */
  environment?: NodeJS.ProcessEnv;
  /** The operator's sandbox settings; default: the defaults. */
  settings?: SandboxSettings;
  /** Where per-call cgroups are made, as probed at start. */
  cgroups?: CgroupSupport;
}

/**
 * The sandbox tools of a turn come from `config.sandbox` and `config.workspace` only, never
 * from `config.tools`: what bash and the file tools may reach is set in one place. Workspace
 * paths are relative to the account's folder in the bucket.
 */
export function sandboxToolSource(options: SandboxSourceOptions): ToolSource {
  return {
    name: 'config.sandbox and config.workspace',
    build(config, context) {
      const { sandbox, workspace } = validateAgentConfigSections(config);
      if (!sandbox && !workspace) return {};
      if (workspace && Object.keys(workspace).length > 0 && !options.bucketFolder) {
        throw new Error('config.workspace needs the filesystem bucket, and this service was started without a bucket folder.');
      }
      const accountFolder = accountBucketFolder(options.bucketFolder ?? '', context.accountId);
      const settings = options.settings ?? defaultSandboxSettings;
      return buildAgentSandboxTools({
        config: { sandbox, workspace },
        bucketFolder: accountFolder,
        bubblewrap: options.bubblewrap,
        logger: context.logger,
        environment: options.environment,
        runtime: { settings, cgroups: options.cgroups, diskQuota: new DiskQuota(accountFolder, settings.diskQuotaBytes) },
      });
    },
  };
}
