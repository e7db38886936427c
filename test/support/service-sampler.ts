import { Worker } from 'node:worker_threads';

/** What the sampler saw while it ran. */
export interface ServiceSamples {
  /** `GET /` answers timed (each waits for the one before). */
  requests: number;
  /** `GET /` requests that failed, answered non-2xx or took longer than the 10 s bound. */
  failures: number;
  worstMs: number;
  /** The service process's resident memory, from `/proc/<pid>/status`. */
  firstRssBytes: number;
  peakRssBytes: number;
}

// Plain JavaScript run in a worker thread: the test's own work (fixtures, streams) cannot delay
// its timers, so a slow answer is the service's.
const samplerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { url, pid, everyMs } = workerData;
const samples = { requests: 0, failures: 0, worstMs: 0, firstRssBytes: 0, peakRssBytes: 0 };
let stopped = false;
const readRss = () => {
  try {
    const match = /VmRSS:\\s+(\\d+) kB/.exec(readFileSync('/proc/' + pid + '/status', 'utf8'));
    if (!match) return;
    const bytes = Number(match[1]) * 1024;
    if (samples.firstRssBytes === 0) samples.firstRssBytes = bytes;
    samples.peakRssBytes = Math.max(samples.peakRssBytes, bytes);
  } catch {}
};
readRss();
const rssTimer = setInterval(readRss, everyMs);
const get = async () => {
  const response = await fetch(url, { signal: AbortSignal.timeout(10000) });
  await response.arrayBuffer();
  return response;
};
(async () => {
  // Untimed: the worker's first fetch loads its HTTP client and opens the connection (0.3-0.5 s
  // on a loaded machine), which is the sampler's cost, not the service's.
  await get().catch(() => undefined);
  parentPort.postMessage('ready');
  while (!stopped) {
    const started = performance.now();
    try {
      const response = await get();
      if (!response.ok) samples.failures += 1;
    } catch {
      samples.failures += 1;
    }
    samples.requests += 1;
    samples.worstMs = Math.max(samples.worstMs, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
})();
parentPort.on('message', () => {
  stopped = true;
  clearInterval(rssTimer);
  readRss();
  parentPort.postMessage(samples);
});
`;

/**
 * Samples a service from a worker thread every `everyMs`: the latency of `GET <url>` and the
 * resident memory of process `pid`. Resolves once the worker has made one untimed request (its
 * HTTP client loaded, its connection open), so the first timed answer measures the service.
 * `stop()` gives the figures.
 */
export async function startServiceSampler(url: string, pid: number, everyMs = 100): Promise<{ stop(): Promise<ServiceSamples> }> {
  const worker = new Worker(samplerSource, { eval: true, workerData: { url, pid, everyMs } });
  await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    stop: async () => {
      const samples = new Promise<ServiceSamples>((resolve) => worker.once('message', resolve));
      worker.postMessage('stop');
      const result = await samples;
      await worker.terminate();
      return result;
    },
  };
}
