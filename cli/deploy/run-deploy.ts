import type { CliContext } from '../cli-context.js';
import { commandHint } from '../command-hint.js';
import { printJson, printText } from '../output.js';
import { readDeployInputs } from './deploy-inputs.js';
import { buildDeployOutputs, formatDeployOutputs, writeDeployOutputs, type DeployOutputs } from './deploy-outputs.js';
import { formatSeconds, runCommand, runSteps, type DeployStep } from './deploy-steps.js';
import { startStage, stopStage, type StartedServices } from './local-target.js';
import { findProjectRoot } from './project-root.js';
import { stageFolder, stagesRoot } from './stage-folder.js';
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
  const inputs = readDeployInputs(context.env, { stage: options.stage, accountPort: options.accountPort, agentPort: options.agentPort });
  const projectRoot = options.projectRoot ?? findProjectRoot();
  const folder = stageFolder(stagesRoot(context.env), inputs.stage);
  const npm = (script: string) => () => runCommand('npm', ['run', script], { cwd: projectRoot, environment: context.env });
  let started: StartedServices | undefined;
  let outputs: DeployOutputs | undefined;

  const steps: DeployStep[] = [
    { name: 'typecheck', ...(options.skipChecks ? { skip: '--skip-checks' } : {}), run: npm('typecheck') },
    { name: 'lint', ...(options.skipChecks ? { skip: '--skip-checks' } : {}), run: npm('lint') },
    { name: 'build', ...(options.skipBuild ? { skip: '--skip-build' } : {}), run: npm('build') },
    {
      name: 'stop running services',
      run: async () => {
        const stopped = await stopStage(folder, { timeoutMs: options.stopTimeoutMs ?? 10_000 });
        return stopped ? `pid ${stopped.pid}, ${stopped.signal} ${formatSeconds(stopped.elapsedMs)}` : 'none running';
      },
    },
    {
      name: 'start services',
      run: async () => {
        started = await startStage({ folder, projectRoot, inputs, environment: context.env, readyTimeoutMs: options.readyTimeoutMs ?? 30_000 });
        return `pid ${started.pid}`;
      },
    },
    {
      name: 'write outputs',
      run: async () => {
        outputs = buildDeployOutputs({ folder, inputs, urls: started!, pid: started!.pid, environment: context.env });
        await writeDeployOutputs(folder, outputs);
      },
    },
  ];

  const reporter = await createStepReporter(context, { json: options.json });
  if (!options.json) context.stderr.write(`harness deploy: stage ${inputs.stage} (local target, ${folder.path})\n`);
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
