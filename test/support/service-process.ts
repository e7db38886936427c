import { execa, type ResultPromise } from 'execa';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { testDatabaseUrl } from './test-storage.js';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface ServiceProcess {
  accountUrl: string;
  agentUrl: string;
  child: ResultPromise;
  /** Everything the process wrote so far (its log lines go to stderr). */
  output(): string;
  /** Kill without warning, like a crash or `kill -9`. */
  killHard(): Promise<void>;
  stop(): Promise<void>;
}

export interface ServiceProcessOptions {
  /**
   * `lowdb` keeps the service on lowdb files in its data folder even when the tests run on
   * PostgreSQL: for tests about those files (kill -9 recovery, the data-folder lock).
   */
  storage?: 'lowdb';
}

/**
 * Run `harness serve` from the sources in a child process, on ports the OS picks. Under the
 * test storage switch it runs on the data folder's PostgreSQL schema (`HARNESS_DATABASE_URL`),
 * the same one again when restarted on the same folder.
 */
export async function startServiceProcess(dataDir: string, environment: Record<string, string> = {}, options: ServiceProcessOptions = {}): Promise<ServiceProcess> {
  const databaseUrl = options.storage === 'lowdb' ? undefined : await testDatabaseUrl(dataDir);
  const child = execa('node', ['--import', 'tsx', 'cli/main.ts', 'serve', '--account-port', '0', '--agent-port', '0', '--data-dir', dataDir, '--json'], {
    cwd: projectRoot,
    // No embedded nats-server unless a test asks: a SIGKILLed service would leave it running.
    env: { LOG_LEVEL: 'warn', ENABLE_WEBSOCKET: 'false', ...(databaseUrl ? { HARNESS_DATABASE_URL: databaseUrl } : {}), ...environment },
    reject: false,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const lines = createInterface({ input: child.stdout! });
  const urls = await new Promise<{ accountUrl: string; agentUrl: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`harness serve did not start within 20 s: ${stderr}`)), 20_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line) as { accountUrl: string; agentUrl: string });
    });
    void child.then((result) => {
      clearTimeout(timer);
      reject(new Error(`harness serve exited (${result.exitCode}): ${stderr}`));
    });
  });
  return {
    ...urls,
    child,
    output: () => stdout + stderr,
    killHard: async () => {
      child.kill('SIGKILL');
      await child;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await child;
    },
  };
}
