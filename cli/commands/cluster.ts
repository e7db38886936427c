import { rm } from 'node:fs/promises';
import { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { formatClusterState, formatStoppedParts } from '../cluster/cluster-output.js';
import { clusterPaths, readClusterState } from '../cluster/cluster-state.js';
import { stopCluster, type StoppedPart } from '../cluster/cluster-stop.js';
import { clusterUp } from '../cluster/cluster-up.js';
import { currentHarnessCommand } from '../cluster/harness-command.js';
import { printJson, printText } from '../output.js';
import { parsePositiveInteger } from '../parse-values.js';
import { commandOptions, withJsonOption } from '../session.js';

export interface ClusterUpCommandOptions {
  replicas?: number;
  json?: boolean;
}

/** Starts the local cluster (or reports the one already running) and prints every URL. */
export async function runClusterUp(context: CliContext, options: ClusterUpCommandOptions): Promise<void> {
  const paths = clusterPaths(context.env);
  if (!options.json) context.stderr.write(`harness cluster up: starting PostgreSQL, 3 NATS servers, the fixtures and ${options.replicas ?? 3} replicas in ${paths.root}...\n`);
  const { state, alreadyRunning } = await clusterUp({ paths, command: currentHarnessCommand(), environment: context.env, replicas: options.replicas });
  if (options.json) printJson(context.stdout, { ...state, alreadyRunning });
  else printText(context.stdout, formatClusterState(state, alreadyRunning));
}

export interface ClusterDownCommandOptions {
  /** Also remove the cluster's folder: the database, the NATS stores, the bucket, the secrets. */
  purge?: boolean;
  /** Seconds each process gets after SIGTERM before SIGKILL. */
  timeout?: number;
  json?: boolean;
}

/** Stops every process of the local cluster; the data stays unless `purge`. */
export async function runClusterDown(context: CliContext, options: ClusterDownCommandOptions): Promise<void> {
  const paths = clusterPaths(context.env);
  const state = await readClusterState(paths);
  const stopped: StoppedPart[] = state === undefined ? [] : await stopCluster(paths, state, { timeoutMs: (options.timeout ?? 10) * 1000 });
  if (options.purge) await rm(paths.root, { recursive: true, force: true });
  if (options.json) printJson(context.stdout, { folder: paths.root, stopped, purged: Boolean(options.purge) });
  else printText(context.stdout, formatStoppedParts(paths.root, stopped) + (options.purge ? ` Removed ${paths.root}.` : ''));
}

export function clusterCommand(context: CliContext): Command {
  const up = withJsonOption(
    new Command('up')
      .description('start a local cluster to try replicas: PostgreSQL, 3 NATS servers, the fixtures and 3 harness serve replicas, detached; prints every URL')
      .option('--replicas <count>', 'how many replicas', parsePositiveInteger, 3),
  ).action(async (_options: unknown, command: Command) => {
    const { replicas, json } = commandOptions<ClusterUpCommandOptions>(command);
    await runClusterUp(context, { replicas, json });
  });
  const down = withJsonOption(
    new Command('down')
      .description('stop every process of the local cluster (the data stays unless --purge)')
      .option('--purge', 'also remove the cluster folder: database, NATS stores, bucket, secrets')
      .option('--timeout <seconds>', 'seconds each process gets after SIGTERM before SIGKILL', parsePositiveInteger, 10),
  ).action(async (_options: unknown, command: Command) => {
    const { purge, timeout, json } = commandOptions<ClusterDownCommandOptions>(command);
    await runClusterDown(context, { purge, timeout, json });
  });
  return new Command('cluster')
    .description('a local cluster of replicas on one PostgreSQL and one NATS cluster (cluster up, cluster down)')
    .addCommand(up)
    .addCommand(down);
}
