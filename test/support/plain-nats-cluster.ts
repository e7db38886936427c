import { execa, type ResultPromise } from 'execa';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { findFreeTcpPort } from '../../server/nats/free-tcp-port.js';
import { findNatsServerBinary } from '../../server/nats/nats-server-binary.js';
import { temporaryFolder } from './temporary-folder.js';

export interface PlainNatsOptions {
  /** How many servers; more than one are routed into one cluster. Default 3. */
  size?: number;
  /** Start them with `-js` (clustered JetStream when there are several). Default true. */
  jetstream?: boolean;
  /** Start them with `--auth <token>`: clients must present it. Default: no authentication. */
  token?: string;
}

export interface PlainNatsCluster {
  /** `nats://127.0.0.1:<port>` of each server, by index. */
  urls: string[];
  /** Everything server `index` logged so far. */
  log(index: number): string;
  /** Stops every server (SIGTERM, then SIGKILL) and removes their stores. */
  stop(): Promise<void>;
}

/**
 * nats-server processes started from the command line the way an operator (or a test author)
 * starts a cluster of their own, with none of the service's configuration: no operator, no
 * accounts, no WebSocket. `nats-server -a 127.0.0.1 -p <port> -n <name> [-js -sd <dir>]
 * [--auth <token>] --cluster_name <name> --cluster nats://127.0.0.1:<route port> --routes <the others>`.
 * Resolves once each server logged that it is ready (JetStream may still be electing its leader).
 */
export async function startPlainNatsCluster(options: PlainNatsOptions = {}): Promise<PlainNatsCluster> {
  const size = options.size ?? 3;
  const binary = await findNatsServerBinary();
  const folder = await temporaryFolder('harness-plain-nats-');
  const ports = new Set<number>();
  while (ports.size < size * 2) ports.add(await findFreeTcpPort());
  const [clientPorts, routePorts] = [[...ports].slice(0, size), [...ports].slice(size)];
  const children: ResultPromise[] = [];
  const logs: string[] = [];
  const stop = async (): Promise<void> => {
    await Promise.allSettled(
      children.map(async (child) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.kill('SIGTERM');
        await child;
        clearTimeout(timer);
      }),
    );
    await folder.remove();
  };
  try {
    await Promise.all(
      clientPorts.map(async (port, index) => {
        const store = join(folder.path, `n${index}`);
        await mkdir(store, { recursive: true });
        const routes = routePorts.filter((_, other) => other !== index).map((routePort) => `nats://127.0.0.1:${routePort}`);
        const argumentList = [
          '-a', '127.0.0.1', '-p', String(port), '-n', `plain-${index}`,
          ...(options.jetstream === false ? [] : ['-js', '-sd', store]),
          ...(options.token === undefined ? [] : ['--auth', options.token]),
          ...(size > 1 ? ['--cluster_name', 'plain', '--cluster', `nats://127.0.0.1:${routePorts[index]}`, '--routes', routes.join(',')] : []),
        ];
        const child = execa(binary, argumentList, { reject: false, stdout: 'pipe', stderr: 'pipe' });
        children.push(child);
        logs[index] = '';
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`nats-server ${index} was not ready within 15 s:\n${logs[index]}`)), 15_000);
          const read = (chunk: Buffer): void => {
            logs[index] += chunk.toString();
            if (logs[index]!.includes('Server is ready')) {
              clearTimeout(timer);
              resolve();
            }
          };
          child.stderr?.on('data', read);
          child.stdout?.on('data', read);
          void child.then((result) => {
            clearTimeout(timer);
            reject(new Error(`nats-server ${index} exited (${result.exitCode}):\n${logs[index]}`));
          });
        });
      }),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { urls: clientPorts.map((port) => `nats://127.0.0.1:${port}`), log: (index) => logs[index] ?? '', stop };
}
