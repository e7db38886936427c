import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The fixture model's key in every benchmark. */
export const benchModelKey = 'sk-bench-0123456789abcdef';

/** CPU time a process has used so far, in ms (Linux `/proc`, 10 ms ticks); undefined elsewhere. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** Start a child process and read the JSON line it prints once it listens. */
export async function startChild(args: string[], environment: Record<string, string> = {}): Promise<{ child: ResultPromise; ready: Record<string, string> }> {
  // BENCH_PROF_DIR=<folder>: the harness service writes a V8 CPU profile there when it exits (to see where a turn's time goes).
  const profile = args[0] === 'cli/main.ts' && process.env.BENCH_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF_DIR}`] : [];
  const child = execa('node', [...profile, '--import', 'tsx', ...args], { cwd: projectRoot, env: { LOG_LEVEL: 'warn', ENABLE_WEBSOCKET: 'false', ...environment }, reject: false, stdout: 'pipe', stderr: 'inherit' });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    void child.then((result) => reject(new Error(`${args.join(' ')} exited (${result.exitCode})`)));
  });
  return { child, ready: JSON.parse(line) as Record<string, string> };
}

/** The fixture model and a harness service, each in its own process, as in production. */
export interface BenchStack {
  modelBaseURL: string;
  accountUrl: string;
  agentUrl: string;
  /** The bench account's secret; its agent `bench` talks to the fixture model. */
  secret: string;
  /** The harness service's process id (to read its CPU time). */
  servicePid: number | undefined;
  close(): Promise<void>;
}

/** `modelBaseURL`: a fixture model the caller runs (in its own process, to read its calls); none is started then. */
export async function startBenchStack(options: { modelLatencyMs?: number; environment?: Record<string, string>; modelBaseURL?: string } = {}): Promise<BenchStack> {
  const modelProcess = options.modelBaseURL
    ? { child: undefined, ready: { baseURL: options.modelBaseURL } as Record<string, string> }
    : await startChild(['fixtures/model-server/main.ts', '--api-key', benchModelKey, '--latency-ms', String(options.modelLatencyMs ?? 0)]);
  const dataDir = await mkdtemp(join(tmpdir(), 'harness-bench-'));
  // The benchmark sets the limits it needs: many concurrent turns from one account, thousands a minute.
  const serviceProcess = await startChild(['cli/main.ts', 'serve', '--account-port', '0', '--agent-port', '0', '--data-dir', dataDir, '--json'], {
    HARNESS_LIMIT_TURNS_PER_MINUTE: '1000000',
    HARNESS_LIMIT_CONCURRENT_TURNS: '1000',
    ...options.environment,
  });
  const close = async () => {
    serviceProcess.child.kill('SIGTERM');
    modelProcess.child?.kill('SIGTERM');
    await Promise.all([serviceProcess.child, modelProcess.child]);
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const accountUrl = serviceProcess.ready.accountUrl!;
    const account = (await (await fetch(`${accountUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bench', description: 'bench' }) })).json()) as { secret: string };
    await fetch(`${accountUrl}/accounts/me/agents/bench`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${account.secret}` },
      body: JSON.stringify({ config: { provider: { openai: { apiKey: benchModelKey, baseURL: modelProcess.ready.baseURL!, model: 'fixture', api: 'chat' } } } }),
    });
    return { modelBaseURL: modelProcess.ready.baseURL!, accountUrl, agentUrl: serviceProcess.ready.agentUrl!, secret: account.secret, servicePid: serviceProcess.child.pid, close };
  } catch (error) {
    await close();
    throw error;
  }
}
