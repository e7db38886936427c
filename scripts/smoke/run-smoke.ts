import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { readDeployOutputs } from '../../cli/deploy/deploy-outputs.js';
import { stageFolder, stagesRoot } from '../../cli/deploy/stage-folder.js';
import { startFixtureModel, type FixtureModelServer } from '../../fixtures/model-server/fixture-model-server.js';
import { startMockWorker, type MockWorker } from '../../mock-worker/mock-worker.js';
import { expectStatus, readUiChunks, requestJson, send, type UiChunk } from './smoke-http.js';

/**
 * The smoke test (`npm run smoke -- --stage NAME`): an end-to-end check of a deployed stage
 * from the outside, through its public URLs only. It brings its own fixture model and mock
 * worker on loopback, so it needs no outside service and no key.
 */

export interface SmokeOptions {
  stage: string;
  /** Where the stage folders are; default `HARNESS_STAGES_DIR`, else `.harness`. */
  stagesDir?: string;
  /** The service URLs to check, instead of reading the stage's `outputs.json`. */
  urls?: { accountServiceUrl: string; agentServiceUrl: string };
  /** Receives one line per finished step. */
  log?: (line: string) => void;
  /** Time limit of each request and of each wait. Default 30 s. */
  stepTimeoutMs?: number;
}

export interface SmokeStepResult {
  name: string;
  ok: boolean;
  elapsedMs: number;
  error?: string;
}

export interface SmokeReport {
  stage: string;
  ok: boolean;
  steps: SmokeStepResult[];
  /** The name of the step that failed, when one did. */
  failedStep?: string;
  elapsedMs: number;
}

interface SmokeState {
  accountUrl: string;
  agentUrl: string;
  model: FixtureModelServer;
  worker: MockWorker;
  secret: string;
  approvalAgentId: string;
  externalAgentId: string;
}

const fixtureKey = `sk-smoke-${randomBytes(12).toString('hex')}`;

export async function runSmoke(options: SmokeOptions): Promise<SmokeReport> {
  const timeoutMs = options.stepTimeoutMs ?? 30_000;
  const log = options.log ?? (() => {});
  const state: Partial<SmokeState> = {};
  const steps: SmokeStepResult[] = [];
  const startedAt = Date.now();
  const need = <K extends keyof SmokeState>(key: K): SmokeState[K] => state[key] as SmokeState[K];

  const plan: [string, () => Promise<void>][] = [
    [
      'read outputs',
      async () => {
        const urls = options.urls ?? (await readDeployOutputs(stageFolder(options.stagesDir ?? stagesRoot(process.env), options.stage)));
        state.accountUrl = urls.accountServiceUrl.replace(/\/+$/, '');
        state.agentUrl = urls.agentServiceUrl.replace(/\/+$/, '');
      },
    ],
    [
      'services answer GET /',
      async () => {
        for (const [service, url] of [['account', need('accountUrl')], ['agent', need('agentUrl')]] as const) {
          const answer = await requestJson(`${url}/`, { timeoutMs }).catch((error: unknown) => {
            throw new Error(`the ${service} service is down: ${(error as Error).message}`);
          });
          expectStatus(answer, 200, `GET ${url}/`);
          if (answer.body.service !== service || answer.body.status !== 'ok') throw new Error(`GET ${url}/ is not the ${service} service: ${JSON.stringify(answer.body)}`);
        }
      },
    ],
    [
      'start fixture model and mock worker',
      async () => {
        state.model = await startFixtureModel({ apiKey: fixtureKey, port: 0 });
        state.worker = await startMockWorker({ port: 0, delayMs: 50 });
      },
    ],
    [
      'create account',
      async () => {
        const username = `smoke-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
        const created = await requestJson(`${need('accountUrl')}/accounts`, { body: { username, description: 'Created by the smoke test' }, timeoutMs });
        expectStatus(created, 201, 'POST /accounts');
        if (typeof created.body.secret !== 'string') throw new Error('POST /accounts answered without a secret');
        state.secret = created.body.secret;
      },
    ],
    [
      'configure approval agent',
      async () => {
        state.approvalAgentId = 'smoke-approval';
        const config = {
          system: 'Smoke test agent.',
          provider: { openai: { apiKey: fixtureKey, baseURL: need('model').baseURL, model: 'fixture', api: 'chat' } },
          tools: { test_async: { needsApproval: true } },
        };
        const answer = await requestJson(`${need('accountUrl')}/accounts/me/agents/${state.approvalAgentId}`, { method: 'PUT', body: { config }, secret: need('secret'), timeoutMs });
        if (answer.status !== 200 && answer.status !== 201) expectStatus(answer, 201, 'PUT the approval agent');
      },
    ],
    ['chat over SSE through an approval', () => chatThroughApproval(need, timeoutMs)],
    [
      'configure external-dispatch agent',
      async () => {
        state.externalAgentId = 'smoke-external';
        const config = {
          system: 'Smoke test agent for external workers.',
          provider: { openai: { apiKey: fixtureKey, baseURL: need('model').baseURL, model: 'fixture', api: 'chat' } },
          tools: {
            test_external_async: {
              async: true,
              execution: 'external-dispatch',
              completionBaseUrl: need('agentUrl'),
              completionBearerToken: need('secret'),
              workerUrl: need('worker').dispatchUrl,
            },
          },
        };
        const answer = await requestJson(`${need('accountUrl')}/accounts/me/agents/${state.externalAgentId}`, { method: 'PUT', body: { config }, secret: need('secret'), timeoutMs });
        if (answer.status !== 200 && answer.status !== 201) expectStatus(answer, 201, 'PUT the external-dispatch agent');
      },
    ],
    ['async run through the mock worker', () => asyncThroughWorker(need, timeoutMs)],
    [
      'create and delete a cron job',
      async () => {
        const base = `${need('accountUrl')}/accounts/me/cron-jobs`;
        const body = { name: 'smoke', agentId: need('approvalAgentId'), conversationKey: 'smoke-cron', prompt: 'smoke cron', scheduleExpression: 'rate(1 hour)' };
        const created = await requestJson(base, { body, secret: need('secret'), timeoutMs });
        expectStatus(created, 201, 'POST /accounts/me/cron-jobs');
        const cronJobId = created.body.cronJobId;
        if (typeof cronJobId !== 'string') throw new Error('POST /accounts/me/cron-jobs answered without a cronJobId');
        const deleted = await requestJson(`${base}/${encodeURIComponent(cronJobId)}`, { method: 'DELETE', secret: need('secret'), timeoutMs });
        expectStatus(deleted, 204, 'DELETE the cron job');
        const gone = await requestJson(`${base}/${encodeURIComponent(cronJobId)}`, { secret: need('secret'), timeoutMs });
        expectStatus(gone, 404, 'GET the deleted cron job');
      },
    ],
    [
      'delete the agents',
      async () => {
        for (const agentId of [need('approvalAgentId'), need('externalAgentId')]) {
          const deleted = await requestJson(`${need('accountUrl')}/accounts/me/agents/${agentId}`, { method: 'DELETE', secret: need('secret'), timeoutMs });
          expectStatus(deleted, 204, `DELETE agent ${agentId}`);
        }
      },
    ],
  ];

  let failedStep: string | undefined;
  try {
    for (const [name, run] of plan) {
      const stepStartedAt = Date.now();
      try {
        await run();
        steps.push({ name, ok: true, elapsedMs: Date.now() - stepStartedAt });
        log(`✓ ${name}  ${formatMs(Date.now() - stepStartedAt)}`);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        steps.push({ name, ok: false, elapsedMs: Date.now() - stepStartedAt, error: message });
        log(`✗ ${name}  ${formatMs(Date.now() - stepStartedAt)}: ${message}`);
        failedStep = name;
        break;
      }
    }
  } finally {
    await Promise.allSettled([state.model?.close(), state.worker?.close()]);
  }
  return { stage: options.stage, ok: failedStep === undefined, steps, ...(failedStep ? { failedStep } : {}), elapsedMs: Date.now() - startedAt };
}

function formatMs(milliseconds: number): string {
  return milliseconds < 1000 ? `${milliseconds} ms` : `${(milliseconds / 1000).toFixed(1)} s`;
}

type Need = <K extends keyof SmokeState>(key: K) => SmokeState[K];

async function chatSse(need: Need, message: unknown, conversationKey: string, timeoutMs: number): Promise<UiChunk[]> {
  const url = `${need('agentUrl')}/agents/${need('approvalAgentId')}/chat`;
  const response = await send(url, { body: { conversationKey, message }, secret: need('secret'), accept: 'text/event-stream', timeoutMs });
  if (response.status !== 200) throw new Error(`POST ${url}: expected HTTP 200, got ${response.status} ${(await response.text()).slice(0, 300)}`);
  if (!response.headers.get('content-type')?.includes('text/event-stream')) throw new Error(`POST ${url} did not answer with text/event-stream`);
  return readUiChunks(response);
}

const finishStatus = (chunks: UiChunk[]): unknown => ((chunks.findLast((chunk) => chunk.type === 'finish')?.messageMetadata ?? {}) as { status?: unknown }).status;

/** `call test_async {}` stops for approval; the native approval answer runs the tool and completes the turn. */
async function chatThroughApproval(need: Need, timeoutMs: number): Promise<void> {
  const conversationKey = `smoke-chat-${randomBytes(4).toString('hex')}`;
  const first = await chatSse(need, 'call test_async {}', conversationKey, timeoutMs);
  const request = first.find((chunk) => chunk.type === 'tool-approval-request');
  if (typeof request?.approvalId !== 'string') throw new Error(`no tool-approval-request chunk in the stream (chunks: ${first.map((chunk) => chunk.type).join(', ')})`);
  if (finishStatus(first) !== 'awaiting_approval') throw new Error(`the first turn finished as ${String(finishStatus(first))}, not awaiting_approval`);
  const answer = { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request.approvalId, approved: true }] };
  const second = await chatSse(need, answer, conversationKey, timeoutMs);
  if (!second.some((chunk) => chunk.type === 'tool-output-available')) throw new Error(`the approved tool gave no output (chunks: ${second.map((chunk) => chunk.type).join(', ')})`);
  if (finishStatus(second) !== 'completed') throw new Error(`the approved turn finished as ${String(finishStatus(second))}, not completed`);
}

/** `/async` with an external-dispatch tool: the mock worker completes the row, the event ends `completed`. */
async function asyncThroughWorker(need: Need, timeoutMs: number): Promise<void> {
  const url = `${need('agentUrl')}/agents/${need('externalAgentId')}/async`;
  const conversationKey = `smoke-async-${randomBytes(4).toString('hex')}`;
  const accepted = await requestJson(url, { body: { conversationKey, message: 'call test_external_async {"task":"smoke"}' }, secret: need('secret'), timeoutMs });
  expectStatus(accepted, 202, `POST ${url}`);
  const statusUrl = accepted.body.statusUrl;
  if (typeof statusUrl !== 'string') throw new Error(`POST ${url} answered without a statusUrl`);
  const deadline = Date.now() + timeoutMs;
  let last: Record<string, unknown> = {};
  while (Date.now() < deadline) {
    const polled = await requestJson(statusUrl, { secret: need('secret'), timeoutMs });
    expectStatus(polled, 200, `GET ${statusUrl}`);
    last = polled.body;
    if (last.status === 'completed') {
      if (need('worker').received().length === 0) throw new Error('the event completed but the mock worker received no dispatch');
      return;
    }
    if (last.status === 'failed') throw new Error(`the event failed: ${JSON.stringify(last.error ?? last).slice(0, 300)}`);
    await sleep(100);
  }
  throw new Error(`the event was still ${String(last.status)} after ${Math.round(timeoutMs / 1000)} s`);
}
