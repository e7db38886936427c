import { createHmac } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultWebhookSettings } from '../server/core/completion-webhooks/webhook-settings.js';
import { ManualClock } from '../server/core/cron-jobs/test-support/manual-clock.js';
import { startChatStack, type ChatStack } from './support/chat-stack.js';
import { startRecordingWorker } from './support/recording-worker.js';
import { storedRowsText } from './support/test-storage.js';
import { type ReceivedWebhook, startWebhookReceiver } from './support/webhook-receiver.js';

/**
 * Completion webhooks end to end: real services on real storage, the fixture model, and a
 * receiver over node:http that checks each signature with the secret, as a customer would.
 */
const webhookSecret = 'whsec-e2e-0123456789-abcdefghij';
/** Short waits so retries happen within the test; the schedule itself is unit-tested. */
const fastRetries = { ...defaultWebhookSettings, retryBaseMs: 20, retryMaxMs: 100, timeoutMs: 5_000, destinationBackoffMs: 20, destinationBackoffMaxMs: 100 };

function verified(webhook: ReceivedWebhook, secret = webhookSecret): boolean {
  const timestamp = String(webhook.headers['x-harness-timestamp']);
  const expected = `v1=${createHmac('sha256', secret).update(`${timestamp}.${webhook.body}`).digest('hex')}`;
  return webhook.headers['x-harness-signature'] === expected && Math.abs(Date.now() / 1000 - Number(timestamp)) < 300;
}

interface DeliveryView {
  deliveryId: string;
  eventId: string;
  eventStatus: string;
  state: string;
  attempts: { attempt: number; statusCode?: number; error?: string; durationMs: number }[];
  error?: string;
}

describe('completion webhooks', () => {
  let stack: ChatStack;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let account: { accountId: string; secret: string };
  const clock = new ManualClock('2030-01-07T10:00:30Z');

  beforeEach(async () => {
    stack = await startChatStack({ webhooks: fastRetries, cronClock: clock });
    receiver = await startWebhookReceiver();
    account = await stack.createAccount('hooked');
  });
  afterEach(async () => {
    await stack.close();
    await receiver.close();
  });

  const authorized = () => ({ authorization: `Bearer ${account.secret}` });
  const putHookedAgent = (agentId: string, extra: Record<string, unknown> = {}) =>
    stack.putAgent(account.secret, agentId, { provider: stack.provider(), webhooks: { completion: { url: receiver.url, secret: webhookSecret } }, ...extra });
  const submit = async (agentId: string, message: string) => {
    const response = await fetch(`${stack.agentUrl}/agents/${agentId}/async`, {
      method: 'POST',
      headers: { ...authorized(), 'content-type': 'application/json' },
      body: JSON.stringify({ conversationKey: 'k', message }),
    });
    expect(response.status).toBe(202);
    return ((await response.json()) as { eventId: string }).eventId;
  };
  const deliveries = async (agentId: string, query = ''): Promise<DeliveryView[]> => {
    const response = await fetch(`${stack.agentUrl}/agents/${agentId}/webhook-deliveries${query}`, { headers: authorized() });
    expect(response.status).toBe(200);
    return ((await response.json()) as { deliveries: DeliveryView[] }).deliveries;
  };
  /** Waits (real time) until every delivery of the agent has ended. */
  const settledDeliveries = async (agentId: string, count: number): Promise<DeliveryView[]> => {
    for (let attempt = 0; attempt < 1_000; attempt += 1) {
      const found = await deliveries(agentId);
      if (found.length >= count && found.every((delivery) => delivery.state !== 'pending')) return found;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`deliveries of ${agentId} did not settle: ${JSON.stringify(await deliveries(agentId))}`);
  };
  const statusView = async (eventId: string) => (await fetch(`${stack.agentUrl}/status/${eventId}`, { headers: authorized() })).text();

  it('POSTs one signed status row per /async finish: the /status view, byte for byte', async () => {
    await putHookedAgent('helper');
    const eventId = await submit('helper', 'hello webhook');
    const [webhook] = await receiver.waitFor(1);
    expect(verified(webhook!)).toBe(true);
    expect(verified(webhook!, 'another-secret-0123456789')).toBe(false);
    expect(webhook!.headers['content-type']).toBe('application/json');
    expect(webhook!.headers['x-harness-event']).toBe(eventId);
    expect(webhook!.body).toBe(await statusView(eventId));
    expect(JSON.parse(webhook!.body)).toMatchObject({ eventId, status: 'completed', result: { text: 'Echo: hello webhook' } });
    const [delivery] = await settledDeliveries('helper', 1);
    expect(delivery).toMatchObject({ deliveryId: webhook!.headers['x-harness-delivery'], eventId, eventStatus: 'completed', state: 'delivered' });
    expect(delivery!.attempts).toMatchObject([{ attempt: 1, statusCode: 200 }]);
    // A second request: its own delivery; the first is never sent again.
    const second = await submit('helper', 'once more');
    await receiver.waitFor(2);
    await stack.core.completionWebhooks.idle();
    expect(receiver.received.map((received) => received.headers['x-harness-event'])).toEqual([eventId, second]);
    expect((await deliveries('helper')).map((found) => found.eventId)).toEqual([second, eventId]);
    expect(await deliveries('helper', '?limit=1')).toHaveLength(1);
  });

  it('retries a 500 with the same delivery id: one delivery record, two attempts', async () => {
    await putHookedAgent('helper');
    receiver.answerWith(500);
    const eventId = await submit('helper', 'flaky receiver');
    const [first, second] = await receiver.waitFor(2);
    expect(verified(first!) && verified(second!)).toBe(true);
    expect(second!.headers['x-harness-delivery']).toBe(first!.headers['x-harness-delivery']);
    expect(second!.body).toBe(first!.body);
    const found = await settledDeliveries('helper', 1);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ eventId, state: 'delivered' });
    expect(found[0]!.attempts).toMatchObject([
      { attempt: 1, statusCode: 500 },
      { attempt: 2, statusCode: 200 },
    ]);
    expect(receiver.received).toHaveLength(2);
  });

  it('does not retry a 4xx other than 429, and gives up after the last attempt', async () => {
    await stack.close();
    stack = await startChatStack({ webhooks: { ...fastRetries, maxAttempts: 3 }, cronClock: clock });
    account = await stack.createAccount('hooked');
    await putHookedAgent('helper');
    receiver.answerWith(404);
    await submit('helper', 'gone receiver');
    const [refused] = await settledDeliveries('helper', 1);
    expect(refused).toMatchObject({ state: 'failed', attempts: [{ attempt: 1, statusCode: 404 }] });
    receiver.answerWith(503, 429, 500);
    await submit('helper', 'down receiver');
    const [exhausted] = await settledDeliveries('helper', 2);
    expect(exhausted).toMatchObject({ state: 'failed' });
    expect(exhausted!.attempts.map((attempt) => attempt.statusCode)).toEqual([503, 429, 500]);
    expect(receiver.received).toHaveLength(4);
  });

  it('records a connection refused as an attempt with its error, and retries it', async () => {
    await stack.close();
    stack = await startChatStack({ webhooks: { ...fastRetries, maxAttempts: 2 }, cronClock: clock });
    account = await stack.createAccount('hooked');
    // A port nobody listens on: a receiver started and closed.
    const gone = await startWebhookReceiver();
    await gone.close();
    await stack.putAgent(account.secret, 'helper', { provider: stack.provider(), webhooks: { completion: { url: gone.url, secret: webhookSecret } } });
    await submit('helper', 'nobody listens');
    const [delivery] = await settledDeliveries('helper', 1);
    expect(delivery).toMatchObject({ state: 'failed' });
    expect(delivery!.attempts).toHaveLength(2);
    expect(delivery!.attempts[0]!.error).toMatch(/ECONNREFUSED/);
  });

  it('announces cron runs and continuations too, and never the waiting in between', async () => {
    const worker = await startRecordingWorker();
    try {
      await putHookedAgent('helper', {
        tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: stack.agentUrl, completionBearerToken: account.secret, workerUrl: worker.dispatchUrl } },
      });
      // A continuation: a JSON chat whose turn waits for an external tool, then the completion.
      const answer = (await (await stack.chat(account.secret, 'helper', { conversationKey: 'c', message: 'call test_external_async {"task":"later"}' })).json()) as { status: string; eventId: string };
      expect(answer.status).toBe('waiting_async_tools');
      await stack.core.completionWebhooks.idle();
      expect(receiver.received).toHaveLength(0);
      expect((await worker.complete(worker.dispatches[0]!, { status: 'completed', response: { done: true } })).status).toBe(202);
      const [continuation] = await receiver.waitFor(1);
      expect(verified(continuation!)).toBe(true);
      expect(JSON.parse(continuation!.body)).toMatchObject({ eventId: answer.eventId, status: 'completed' });
      expect(continuation!.body).toBe(await statusView(answer.eventId));

      // A cron run.
      const created = await fetch(`${stack.accountUrl}/accounts/me/cron-jobs`, {
        method: 'POST',
        headers: { ...authorized(), 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'job', agentId: 'helper', conversationKey: 'cron:job', prompt: 'hello from cron', scheduleExpression: 'cron(* * * * ? *)' }),
      });
      expect(created.status).toBe(201);
      await clock.runUntil('2030-01-07T10:01:00Z', () => stack.core.cronScheduler.idle());
      const [, cron] = await receiver.waitFor(2);
      expect(verified(cron!)).toBe(true);
      expect(JSON.parse(cron!.body)).toMatchObject({ status: 'completed', conversationKey: 'cron:job', result: { text: 'Echo: hello from cron' } });
      await settledDeliveries('helper', 2);
      await stack.core.completionWebhooks.idle();
      expect(receiver.received).toHaveLength(2);
    } finally {
      await worker.close();
    }
  });

  it('keeps the secret encrypted at rest and redacted in every view; takes a short one, refuses an empty one', async () => {
    await putHookedAgent('helper');
    const view = await fetch(`${stack.accountUrl}/accounts/me/agents/helper`, { headers: authorized() });
    const text = await view.text();
    expect(text).not.toContain(webhookSecret);
    expect(JSON.parse(text)).toMatchObject({ config: { webhooks: { completion: { url: receiver.url, secret: { redacted: true, last4: webhookSecret.slice(-4) } } } } });
    // Sending the redacted form back keeps the stored secret: the next webhook still verifies.
    const config = (JSON.parse(text) as { config: Record<string, unknown> }).config;
    await stack.putAgent(account.secret, 'helper', { ...config, system: 'Be brief.' });
    await submit('helper', 'after a round trip');
    const [webhook] = await receiver.waitFor(1);
    expect(verified(webhook!)).toBe(true);
    await settledDeliveries('helper', 1);

    // The contract sets no minimum length: a short secret signs like any other.
    const shortSecret = 'test-secret';
    await stack.putAgent(account.secret, 'short', { provider: stack.provider(), webhooks: { completion: { url: receiver.url, secret: shortSecret } } });
    const shortView = await (await fetch(`${stack.accountUrl}/accounts/me/agents/short`, { headers: authorized() })).text();
    expect(shortView).not.toContain(shortSecret);
    expect(JSON.parse(shortView)).toMatchObject({ config: { webhooks: { completion: { secret: { redacted: true } } } } });
    await submit('short', 'signed with a short secret');
    const [, shortWebhook] = await receiver.waitFor(2);
    expect(verified(shortWebhook!, shortSecret)).toBe(true);
    await settledDeliveries('short', 1);
    const empty = await fetch(`${stack.accountUrl}/accounts/me/agents/other`, {
      method: 'PUT',
      headers: { ...authorized(), 'content-type': 'application/json' },
      body: JSON.stringify({ config: { webhooks: { completion: { url: receiver.url, secret: '' } } } }),
    });
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain('config.webhooks.completion.secret must not be empty');
    const badUrl = await fetch(`${stack.accountUrl}/accounts/me/agents/other`, {
      method: 'PUT',
      headers: { ...authorized(), 'content-type': 'application/json' },
      body: JSON.stringify({ config: { webhooks: { completion: { url: 'ftp://example.com', secret: webhookSecret } } } }),
    });
    expect(badUrl.status).toBe(400);
    expect(await badUrl.text()).toContain('config.webhooks.completion.url must be an absolute http(s) URL');

    await stack.close();
    const entries = await readdir(stack.dataDir, { recursive: true, withFileTypes: true }).catch(() => []);
    for (const entry of entries.filter((found) => found.isFile())) {
      const bytes = await readFile(join(entry.parentPath, entry.name));
      expect(bytes.includes(webhookSecret) || bytes.includes(shortSecret), entry.name).toBe(false);
    }
    const rows = await storedRowsText(`${stack.dataDir}/tables`);
    expect((rows?.includes(webhookSecret) ?? false) || (rows?.includes(shortSecret) ?? false)).toBe(false);
    stack = await startChatStack({ webhooks: fastRetries, cronClock: clock });
  });

  it('refuses a non-public literal URL when the config is written under HARNESS_OUTBOUND_POLICY=public', async () => {
    await stack.close();
    stack = await startChatStack({ webhooks: fastRetries, cronClock: clock, outbound: { mode: 'public', allow: [] } });
    account = await stack.createAccount('hooked');
    const literal = await fetch(`${stack.accountUrl}/accounts/me/agents/helper`, {
      method: 'PUT',
      headers: { ...authorized(), 'content-type': 'application/json' },
      body: JSON.stringify({ config: { webhooks: { completion: { url: receiver.url, secret: webhookSecret } } } }),
    });
    expect(literal.status).toBe(400);
    expect(await literal.text()).toContain('config.webhooks.completion.url points at 127.0.0.1, a loopback address');
  });

  it('answers 404 for another account’s agent and 400 for a bad limit', async () => {
    await putHookedAgent('helper');
    const other = await stack.createAccount('stranger');
    expect((await fetch(`${stack.agentUrl}/agents/helper/webhook-deliveries`, { headers: { authorization: `Bearer ${other.secret}` } })).status).toBe(404);
    expect((await fetch(`${stack.agentUrl}/agents/helper/webhook-deliveries?limit=0`, { headers: authorized() })).status).toBe(400);
    expect((await fetch(`${stack.agentUrl}/agents/helper/webhook-deliveries`)).status).toBe(401);
  });
});
