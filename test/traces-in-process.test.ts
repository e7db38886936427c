import { afterEach, describe, expect, it } from 'vitest';
import { tracingState } from '../server/core/telemetry/tracing-state.js';
import { startChatStack, type ChatStack } from './support/chat-stack.js';
import { startOtlpReceiver, type OtlpReceiver } from './support/otlp-receiver.js';

/**
 * Services built in this process (no `harness serve`) with `OTEL_EXPORTER_OTLP_ENDPOINT` set
 * export spans: building the apps starts tracing, and closing them flushes and stops it.
 */
const variables = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_BSP_SCHEDULE_DELAY'] as const;

describe('traces of services built in-process', () => {
  let receiver: OtlpReceiver | undefined;
  let stack: ChatStack | undefined;
  const saved = Object.fromEntries(variables.map((name) => [name, process.env[name]]));

  afterEach(async () => {
    await stack?.close();
    await receiver?.close();
    for (const name of variables) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('a chat turn on services built with OTEL_EXPORTER_OTLP_ENDPOINT set is exported, in the encoding asked for; closing them turns tracing off', async () => {
    receiver = await startOtlpReceiver();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
    process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
    stack = await startChatStack();
    const { secret } = await stack.createAccount('traced');
    await stack.putAgent(secret, 'helper', { provider: stack.provider() });
    const response = await stack.chat(secret, 'helper', { conversationKey: 'k', message: 'hello' });
    expect(response.status).toBe(200);

    const spans = await receiver.waitFor((received) => received.some((span) => span.name === 'POST /agents/:agentId/chat') && received.some((span) => span.name === 'harness.turn'));
    const request = spans.find((span) => span.name === 'POST /agents/:agentId/chat')!;
    const turn = spans.find((span) => span.name === 'harness.turn')!;
    expect(turn).toMatchObject({ traceId: request.traceId, parentSpanId: request.spanId });
    expect(turn.attributes).toMatchObject({ 'harness.agent.id': 'helper', 'harness.turn.status': 'completed' });
    expect(request.resource).toMatchObject({ 'service.name': 'harness' });
    expect(receiver.encodings().every((encoding) => encoding === 'json')).toBe(true);

    await stack.close();
    stack = undefined;
    expect(tracingState()).toBeUndefined();
  });

  it('builds no tracing without an endpoint', async () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    stack = await startChatStack();
    expect(tracingState()).toBeUndefined();
  });
});
