import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureModel, type FixtureModelServer } from '../fixtures/model-server/fixture-model-server.js';
import { attributeStrings, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver.js';
import { startRecordingWorker } from './support/recording-worker.js';
import { startServiceProcess, type ServiceProcess } from './support/service-process.js';
import { temporaryFolder } from './support/temporary-folder.js';

/**
 * Traces end to end: `harness serve` in its own process with `OTEL_EXPORTER_OTLP_ENDPOINT`
 * pointing at an OTLP/HTTP receiver on loopback, which decodes the protobuf export requests
 * (and, in one case, the JSON ones of `http/json`).
 */
const modelKey = 'sk-fixture-model-key-0123456789';
const promptMarker = 'prompt-marker-7f3a9c';
const outputMarker = 'worker-output-marker-51be2d';

type Folder = Awaited<ReturnType<typeof temporaryFolder>>;

interface TracedService {
  service: ServiceProcess;
  folder: Folder;
  account: { accountId: string; secret: string };
  putAgent(agentId: string, config: Record<string, unknown>): Promise<void>;
  send(method: string, path: string, body?: unknown): Promise<Response>;
  stop(): Promise<void>;
}

async function startTracedService(receiver: OtlpReceiver, model: FixtureModelServer, environment: Record<string, string> = {}): Promise<TracedService> {
  const folder = await temporaryFolder();
  const service = await startServiceProcess(folder.path, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50', ...environment });
  const created = await fetch(`${service.accountUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tracer', description: 'test' }) });
  const account = (await created.json()) as { accountId: string; secret: string };
  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${path.startsWith('/accounts') ? service.accountUrl : service.agentUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${account.secret}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return {
    service,
    folder,
    account,
    send,
    putAgent: async (agentId, config) => {
      const response = await send('PUT', `/accounts/me/agents/${agentId}`, { config: { provider: { openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture-model', api: 'responses' } }, ...config } });
      expect(response.status).toBeLessThan(300);
    },
    stop: async () => {
      await service.stop();
      await folder.remove();
    },
  };
}

const named = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);
const parentOf = (spans: ReceivedSpan[], span: ReceivedSpan) => spans.find((candidate) => candidate.spanId === span.parentSpanId && candidate.traceId === span.traceId);

describe('traces over OTLP', () => {
  let receiver: OtlpReceiver;
  let model: FixtureModelServer;
  let traced: TracedService;
  let worker: Awaited<ReturnType<typeof startRecordingWorker>>;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    model = await startFixtureModel({ apiKey: modelKey });
    worker = await startRecordingWorker();
    traced = await startTracedService(receiver, model);
  });
  afterAll(async () => {
    await traced?.stop();
    await worker?.close();
    await model?.close();
    await receiver?.close();
  });

  it('a turn with a tool call is one trace: HTTP request, turn, admission, model calls, tool call, async wait, storage write', async () => {
    await traced.putAgent('helper', { tools: { test_async: { async: true, durationMs: 10 } } });
    const response = await traced.send('POST', '/agents/helper/chat', { conversationKey: 'k1', message: `call test_async {"label":"${promptMarker}"}` });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { status: string };
    expect(answer.status).toBe('completed');

    const spans = await receiver.waitFor((received) => received.some((span) => span.name === 'POST /agents/:agentId/chat') && named(received, 'harness.turn').some((turn) => turn.attributes['harness.turn.status'] === 'completed'));
    const request = named(spans, 'POST /agents/:agentId/chat')[0]!;
    expect(request).toMatchObject({ kind: 2, parentSpanId: '' });
    expect(request.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/agents/:agentId/chat', 'http.response.status_code': 200 });
    expect(request.resource).toMatchObject({ 'service.name': 'harness' });
    expect(typeof request.resource['service.instance.id']).toBe('string');
    const trace = spans.filter((span) => span.traceId === request.traceId);

    const turn = named(trace, 'harness.turn')[0]!;
    expect(turn.parentSpanId).toBe(request.spanId);
    expect(turn.attributes).toMatchObject({ 'harness.account.id': traced.account.accountId, 'harness.agent.id': 'helper', 'harness.transport': 'json', 'harness.turn.status': 'completed' });
    expect(turn.attributes['harness.turn.id']).toMatch(/^turn_/);
    expect(parentOf(trace, named(trace, 'harness.turn.admission')[0]!)).toBe(turn);
    const modelCalls = named(trace, 'ai.streamText');
    expect(modelCalls.length).toBeGreaterThanOrEqual(2); // the call, then the answer after the async result
    for (const call of modelCalls) expect(parentOf(trace, call)).toBe(turn);
    expect(named(trace, 'ai.streamText.doStream').every((call) => parentOf(trace, call)?.name === 'ai.streamText')).toBe(true);
    const sdkToolCall = named(trace, 'ai.toolCall')[0]!;
    expect(['ai.streamText', 'ai.streamText.doStream']).toContain(parentOf(trace, sdkToolCall)?.name);
    const toolCall = named(trace, 'harness.tool.call')[0]!;
    expect(parentOf(trace, toolCall)).toBe(sdkToolCall);
    expect(toolCall.attributes).toMatchObject({ 'harness.tool.name': 'test_async', 'harness.tool.outcome': 'processing' });
    const asyncWait = named(trace, 'harness.tool.async_wait')[0]!;
    expect(parentOf(trace, asyncWait)).toBe(toolCall);
    expect(asyncWait.attributes).toMatchObject({ 'harness.tool.name': 'test_async', 'harness.async_tool.status': 'completed' });
    const writes = named(trace, 'harness.storage.write');
    expect(writes.length).toBeGreaterThanOrEqual(2);
    for (const write of writes) expect(parentOf(trace, write)).toBe(turn);
    expect(writes[0]!.attributes).toMatchObject({ 'harness.storage.table': 'conversations' });
  });

  it('answering an approval records the wait, from the request to the answer, in the answering turn', async () => {
    await traced.putAgent('approver', { tools: { test_async: { async: true, durationMs: 5, needsApproval: true } } });
    const asked = (await (await traced.send('POST', '/agents/approver/chat', { conversationKey: 'k-approval', message: 'call test_async {"label":"needs a yes"}' })).json()) as { status: string; pendingApprovals: { approvalId: string }[] };
    expect(asked.status).toBe('awaiting_approval');
    const approvalId = asked.pendingApprovals[0]!.approvalId;
    const answered = await traced.send('POST', '/agents/approver/chat', { conversationKey: 'k-approval', message: { role: 'tool', content: [{ type: 'tool-approval-response', approvalId, approved: false, reason: 'not now' }] } });
    expect(answered.status).toBe(200);
    const spans = await receiver.waitFor((received) => received.some((span) => span.name === 'harness.tool.approval_wait' && span.attributes['harness.approval.id'] === approvalId));
    const wait = spans.find((span) => span.name === 'harness.tool.approval_wait' && span.attributes['harness.approval.id'] === approvalId)!;
    expect(wait.attributes).toMatchObject({ 'harness.tool.name': 'test_async', 'harness.approval.approved': false });
    expect(wait.endTimeUnixNano).toBeGreaterThanOrEqual(wait.startTimeUnixNano);
    const turn = (await receiver.waitFor((received) => received.some((span) => span.spanId === wait.parentSpanId))).find((span) => span.spanId === wait.parentSpanId)!;
    expect(turn.name).toBe('harness.turn');
  });

  it('a streamed (SSE) turn is a child of its request span, which ends with the stream', async () => {
    const response = await fetch(`${traced.service.agentUrl}/agents/helper/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${traced.account.secret}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ conversationKey: 'sse', message: 'hello' }),
    });
    expect(response.status).toBe(200);
    await response.text();
    const spans = await receiver.waitFor((received) => named(received, 'harness.turn').some((turn) => turn.attributes['harness.transport'] === 'sse' && turn.endTimeUnixNano > 0n));
    const turn = named(spans, 'harness.turn').find((candidate) => candidate.attributes['harness.transport'] === 'sse')!;
    const request = (await receiver.waitFor((received) => received.some((span) => span.spanId === turn.parentSpanId)))!.find((span) => span.spanId === turn.parentSpanId)!;
    expect(request.name).toBe('POST /agents/:agentId/chat');
    expect(request.attributes['http.response.status_code']).toBe(200);
  });

  it('an async tool completion: the /complete request, and a continuation in a trace of its own linked to the turn it continues', async () => {
    await traced.putAgent('dispatcher', { tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: traced.service.agentUrl, completionBearerToken: traced.account.secret, workerUrl: worker.dispatchUrl } } });
    const response = await traced.send('POST', '/agents/dispatcher/chat', { conversationKey: 'k2', message: 'call test_external_async {"task":"remote"}' });
    const answer = (await response.json()) as { status: string; eventId: string };
    expect(answer.status).toBe('waiting_async_tools');
    const completed = await worker.complete(worker.dispatches.at(-1)!, { status: 'completed', response: { found: outputMarker } });
    expect(completed.status).toBe(202);

    const spans = await receiver.waitFor((received) => named(received, 'harness.continuation').some((span) => span.endTimeUnixNano > 0n && span.links.length > 0) && received.some((span) => span.name === 'harness.async_tool.complete'));
    const originalTurn = named(spans, 'harness.turn').find((turn) => turn.attributes['harness.event.id'] === answer.eventId && turn.attributes['harness.turn.kind'] === 'message')!;
    expect(originalTurn.attributes['harness.turn.status']).toBe('waiting_async_tools');
    const continuation = named(spans, 'harness.continuation').find((span) => span.attributes['harness.event.id'] === answer.eventId)!;
    expect(continuation.parentSpanId).toBe('');
    expect(continuation.traceId).not.toBe(originalTurn.traceId);
    expect(continuation.links).toContainEqual(expect.objectContaining({ traceId: originalTurn.traceId, spanId: originalTurn.spanId }));
    const continuedTurn = await receiver.waitFor((received) => received.some((span) => span.name === 'harness.turn' && span.parentSpanId === continuation.spanId && span.endTimeUnixNano > 0n));
    expect(continuedTurn.find((span) => span.parentSpanId === continuation.spanId && span.name === 'harness.turn')!.attributes).toMatchObject({ 'harness.turn.kind': 'continuation', 'harness.turn.status': 'completed' });

    const completion = named(spans, 'harness.async_tool.complete')[0]!;
    expect(completion.attributes).toMatchObject({ 'harness.async_tool.status': 'completed', 'harness.async_tool.continuation': 'accepted' });
    expect(parentOf(spans, completion)?.name).toBe('POST /async-tools/:resultId/complete');
  });

  it('a cron fire is a span, and the run it starts continues its trace', async () => {
    const created = await traced.send('POST', '/accounts/me/cron-jobs', { name: 'traced', agentId: 'helper', conversationKey: 'cron:traced', prompt: 'hello from cron', scheduleExpression: 'rate(1 hour)', timezone: 'UTC' });
    expect(created.status).toBe(201);
    const job = (await created.json()) as { cronJobId: string };
    const spans = await receiver.waitFor((received) => {
      const fire = received.find((span) => span.name === 'harness.cron.fire' && span.attributes['harness.cron.job_id'] === job.cronJobId);
      return fire !== undefined && ['harness.turn', 'harness.async_request'].every((name) => received.some((span) => span.name === name && span.traceId === fire.traceId));
    });
    const fire = spans.find((span) => span.name === 'harness.cron.fire' && span.attributes['harness.cron.job_id'] === job.cronJobId)!;
    expect(fire.parentSpanId).toBe('');
    expect(typeof fire.attributes['harness.cron.slot']).toBe('string');
    const run = spans.find((span) => span.name === 'harness.async_request' && span.traceId === fire.traceId)!;
    expect(run.parentSpanId).toBe(fire.spanId);
    expect(run.attributes).toMatchObject({ 'harness.transport': 'cron', 'harness.event.id': fire.attributes['harness.event.id'] });
    const turn = spans.find((span) => span.name === 'harness.turn' && span.traceId === fire.traceId)!;
    expect(turn.parentSpanId).toBe(run.spanId);
  });

  it('no span carries the prompt, the account secret or a tool output', async () => {
    // Everything so far has been exported: the prompts, the secret (in the agent config and the bearer) and the worker's output went through.
    const spans = receiver.spans();
    expect(spans.length).toBeGreaterThan(20);
    for (const span of spans) {
      for (const value of attributeStrings(span)) {
        expect(value).not.toContain(promptMarker);
        expect(value).not.toContain(outputMarker);
        expect(value).not.toContain(traced.account.secret);
        expect(value).not.toContain(modelKey);
        expect(value).not.toContain('hello from cron');
      }
    }
    expect(receiver.refused()).toEqual([]);
  });

  it('with OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json, spans go as OTLP JSON to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, named by OTEL_RESOURCE_ATTRIBUTES', async () => {
    const jsonReceiver = await startOtlpReceiver({ path: '/collector/traces' });
    const json = await startTracedService(jsonReceiver, model, {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: jsonReceiver.tracesUrl,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=harness-json,deployment.environment=test',
    });
    try {
      await json.putAgent('plain', {});
      const response = await json.send('POST', '/agents/plain/chat', { conversationKey: 'k-json', message: 'hello over json' });
      expect(response.status).toBe(200);
      const spans = await jsonReceiver.waitFor((received) => received.some((span) => span.name === 'harness.turn' && span.attributes['harness.turn.status'] === 'completed'));
      expect(jsonReceiver.encodings().length).toBeGreaterThan(0);
      expect(jsonReceiver.encodings().every((encoding) => encoding === 'json')).toBe(true);
      expect(jsonReceiver.refused()).toEqual([]);
      const turn = spans.find((span) => span.name === 'harness.turn')!;
      expect(turn.resource).toMatchObject({ 'service.name': 'harness-json', 'deployment.environment': 'test' });
      expect(turn.attributes).toMatchObject({ 'harness.agent.id': 'plain', 'harness.transport': 'json' });
      const request = spans.find((span) => span.spanId === turn.parentSpanId) ?? (await jsonReceiver.waitFor((received) => received.some((span) => span.spanId === turn.parentSpanId))).find((span) => span.spanId === turn.parentSpanId)!;
      expect(request).toMatchObject({ name: 'POST /agents/:agentId/chat', kind: 2, traceId: turn.traceId });
      expect(named(spans, 'ai.streamText').length).toBeGreaterThan(0);
    } finally {
      await json.stop();
      await jsonReceiver.close();
    }
  });

  it('with content recording on, the prompt is in the model call spans', async () => {
    const recording = await startTracedService(receiver, model, { HARNESS_OTEL_RECORD_CONTENT: 'true', OTEL_SERVICE_NAME: 'harness-recording' });
    try {
      await recording.putAgent('plain', {});
      const response = await recording.send('POST', '/agents/plain/chat', { conversationKey: 'k3', message: `say ${promptMarker}-recorded` });
      expect(response.status).toBe(200);
      const spans = await receiver.waitFor((received) => received.some((span) => span.resource['service.name'] === 'harness-recording' && span.name === 'ai.streamText'));
      const ours = spans.filter((span) => span.resource['service.name'] === 'harness-recording');
      expect(ours.some((span) => attributeStrings(span).some((value) => value.includes(`${promptMarker}-recorded`)))).toBe(true);
      // Content recording puts conversation content in, never secrets.
      for (const span of ours) for (const value of attributeStrings(span)) expect(value).not.toContain(recording.account.secret);
    } finally {
      await recording.stop();
    }
  });
});
