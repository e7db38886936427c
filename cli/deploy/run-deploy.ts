import { mkdir } from 'node:fs/promises';
import { loadRuntimeSecrets } from '../../server/core/secrets/runtime-secrets.js';
import type { CliContext } from '../cli-context.js';
import { commandHint } from '../command-hint.js';
import { printJson, printText } from '../output.js';
import { readDeployInputs } from './deploy-inputs.js';
import { buildDeployOutputs, formatDeployOutputs, writeDeployOutputs, type DeployOutputs } from './deploy-outputs.js';
import { formatSeconds, runCommand, runSteps, type DeployStep } from './deploy-steps.js';
import { startStage, stopStage, type StartedReplica } from './local-target.js';
import { findProjectRoot } from './project-root.js';
import { readReplicaInputs } from './replica-inputs.js';
import { stageFolder, stagesRoot, type StageFolder } from './stage-folder.js';
import { createStepReporter } from './step-reporter.js';

export interface DeployOptions {
  /** Overrides `SST_STAGE`. */
  stage?: string;
  json?: boolean;
  /** Skip `npm run typecheck` and `npm run lint` (tests, quick local iterations). */
  skipChecks?: boolean;
  /** Skip `npm run build` and start what is already in `dist/`. */
  skipBuild?: boolean;
  /** Override `ACCOUNT_PORT` / `AGENT_PORT` (0: the OS picks). */
  accountPort?: number;
  agentPort?: number;
  /** Overrides `HARNESS_DATABASE_URL`: the PostgreSQL database every replica shares. */
  databaseUrl?: string;
  /** Overrides `NATS_URL` (one server, or a cluster's comma-separated). */
  natsUrl?: string;
  /** Overrides `HARNESS_REPLICAS`: how many `harness serve` processes run the stage. */
  replicas?: number;
  /** The package to check, build and run; default: the one this module belongs to. */
  projectRoot?: string;
  /** How long a running service gets to stop after SIGTERM before SIGKILL. Default 10 s. */
  stopTimeoutMs?: number;
  /** How long the new services get to answer `GET /`. Default 30 s. */
  readyTimeoutMs?: number;
}

/**
 * `harness deploy` to the local target: check the inputs, typecheck, lint, build, then stop
 * the stage's running services and start the new build detached on the same stage folder.
 * Prints and writes the outputs; the first failing step stops the run.
 */
export async function runDeploy(context: CliContext, options: DeployOptions = {}): Promise<DeployOutputs> {
  // The flags win over the environment, and reach the services the same way: through it.
  const environment: Record<string, string | undefined> = {
    ...context.env,
    ...(options.databaseUrl === undefined ? {} : { HARNESS_DATABASE_URL: options.databaseUrl }),
    ...(options.natsUrl === undefined ? {} : { NATS_URL: options.natsUrl }),
  };
  const inputs = readDeployInputs(environment, { stage: options.stage, accountPort: options.accountPort, agentPort: options.agentPort });
  const replicaInputs = readReplicaInputs(environment, { replicas: options.replicas });
  const projectRoot = options.projectRoot ?? findProjectRoot();
  const folder = stageFolder(stagesRoot(context.env), inputs.stage);
  const npm = (script: string) => () => runCommand('npm', ['run', script], { cwd: projectRoot, environment: context.env });
  let started: StartedReplica[] = [];
  let outputs: DeployOutputs | undefined;

  const steps: DeployStep[] = [
    { name: 'typecheck', ...(options.skipChecks ? { skip: '--skip-checks' } : {}), run: npm('typecheck') },
    { name: 'lint', ...(options.skipChecks ? { skip: '--skip-checks' } : {}), run: npm('lint') },
    { name: 'build', ...(options.skipBuild ? { skip: '--skip-build' } : {}), run: npm('build') },
    {
      name: 'stop running services',
      run: async () => {
        const stopped = await stopStage(folder, { timeoutMs: options.stopTimeoutMs ?? 10_000 });
        if (!stopped) return 'none running';
        if (stopped.replicas.length === 1) return `pid ${stopped.pid}, ${stopped.signal} ${formatSeconds(stopped.elapsedMs)}`;
        return `${stopped.replicas.length} replicas, pids ${stopped.replicas.map((replica) => replica.pid).join(', ')}`;
      },
    },
    {
      name: 'start services',
      run: async () => {
        const serviceEnvironment = replicaInputs.databaseUrl === null ? environment : await withSharedSecrets(folder, environment);
        started = await startStage({ folder, projectRoot, inputs, replicas: replicaInputs.replicas, environment: serviceEnvironment, readyTimeoutMs: options.readyTimeoutMs ?? 30_000 });
        return started.length === 1 ? `pid ${started[0]!.pid}` : `pids ${started.map((replica) => replica.pid).join(', ')}`;
      },
    },
    {
      name: 'write outputs',
      run: async () => {
        const first = started[0]!;
        const replicas = started.map((replica) => ({ index: replica.index, accountServiceUrl: replica.accountUrl, agentServiceUrl: replica.agentUrl, pid: replica.pid }));
        outputs = buildDeployOutputs({ folder, inputs, urls: first, pid: first.pid, environment, replicaInputs, replicas });
        await writeDeployOutputs(folder, outputs);
      },
    },
  ];

  const reporter = await createStepReporter(context, { json: options.json });
  if (!options.json) context.stderr.write(`harness deploy: stage ${inputs.stage} (local target, ${folder.path}${replicaInputs.replicas > 1 ? `, ${replicaInputs.replicas} replicas` : ''})\n`);
  if (replicaInputs.replicas > 1 && inputs.natsUrl === null && inputs.enableWebsocket !== false) {
    context.stderr.write('harness deploy: warning: no NATS_URL, so each replica starts a nats-server of its own and a NATS client reaches only one replica; set --nats-url to a cluster they share (or ENABLE_WEBSOCKET=false).\n');
  }
  const startedAt = Date.now();
  await runSteps(steps, reporter);
  if (options.json) {
    printJson(context.stdout, outputs);
  } else {
    printText(context.stdout, formatDeployOutputs(outputs!));
    printText(context.stdout, `Deployed stage ${inputs.stage} in ${formatSeconds(Date.now() - startedAt)}. Logs: ${commandHint(context.env)('logs', '--stage', inputs.stage, '-f')}`);
  }
  return outputs!;
}

/**
 * On PostgreSQL every replica must hold the same admin and encryption secrets, or a config
 * encrypted by one cannot be read by another. Those not set in the environment are generated
 * once into the stage folder (where `harness secrets show` reads them) and handed to every replica.
 */
async function withSharedSecrets(folder: StageFolder, environment: Record<string, string | undefined>): Promise<Record<string, string | undefined>> {
  await mkdir(folder.path, { recursive: true, mode: 0o700 });
  const secrets = await loadRuntimeSecrets(folder.path, environment as NodeJS.ProcessEnv);
  return { ...environment, HARNESS_ADMIN_SECRET: secrets.adminSecret, HARNESS_CONFIG_ENCRYPTION_SECRET: secrets.configEncryptionSecret };
}
