import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startChannelsStack, type ChannelsStack } from './support/channels-stack.js';
import { startRecordingWorker } from './support/recording-worker.js';
import { testAdminSecret } from './support/test-services.js';

/**
 * A disabled account does nothing: not through a bearer (401 everywhere), and not through the
 * drivers that start turns without one: a verified webhook, a delivery or an `/async` request
 * queued before it was disabled, and a continuation after async tools settle.
 */
describe('a disabled account', () => {
  let stack: ChannelsStack;
  let account: { accountId: string; secret: string };
  const telegramSettings = () => ({ botToken: '123456:telegram-bot-token-abc', secretToken: 'telegram-secret-token-0123', apiBaseUrl: stack.apis.baseURL('telegram') });
  const telegramHeaders = { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'telegram-secret-token-0123' };
  const update = (id: number, text: string) => JSON.stringify({ update_id: id, message: { message_id: id, from: { id: 7, is_bot: false }, chat: { id: 77 }, text } });
  const setDisabled = async (disabled: boolean) => {
    const response = await fetch(`${stack.accountUrl}/admin/accounts/${account.accountId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${testAdminSecret}` },
      body: JSON.stringify({ disabled }),
    });
    expect(response.status).toBe(200);
  };

  beforeEach(async () => {
    stack = await startChannelsStack();
    account = await stack.createAccount('switched-off');
    const put = await stack.putAgent(account.secret, 'helper', { provider: stack.provider(), channels: { telegram: telegramSettings() } });
    expect(put.status).toBe(201);
  });
  afterEach(async () => {
    await stack.close();
  });

  it('answers a verified webhook like an unknown address and runs nothing', async () => {
    await setDisabled(true);
    const response = await stack.webhook({ accountId: account.accountId, agentId: 'helper', provider: 'telegram' }, update(1, 'hello?'), telegramHeaders);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: 'not_found', message: 'No webhook at this address.' } });
    await stack.idle();
    expect(stack.model.callCount()).toBe(0);
    expect(stack.apis.received('telegram')).toHaveLength(0);
    expect(await stack.core.channels.deliveries.all()).toEqual([]);
    // Enabled again, the same agent answers.
    await setDisabled(false);
    expect((await stack.webhook({ accountId: account.accountId, agentId: 'helper', provider: 'telegram' }, update(2, 'back'), telegramHeaders)).status).toBe(200);
    await stack.apis.waitFor('telegram', 1, 10_000);
  });

  it('drops a delivery accepted before it was disabled: no turn, no reply, recorded as failed', async () => {
    await stack.core.channels.worker.stop();
    const accepted = await stack.webhook({ accountId: account.accountId, agentId: 'helper', provider: 'telegram' }, update(3, 'queued'), telegramHeaders);
    expect(accepted.status).toBe(200);
    await setDisabled(true);
    await stack.restart();
    await stack.idle();
    expect(stack.model.callCount()).toBe(0);
    expect(stack.apis.received('telegram')).toHaveLength(0);
    expect(await stack.core.channels.deliveries.all()).toMatchObject([{ deliveryId: '3', status: 'failed', error: 'account disabled' }]);
  });

  it('fails an /async request queued before it was disabled, with the reason on the status row', async () => {
    await stack.core.asyncWorker.stop();
    const submitted = await fetch(`${stack.agentUrl}/agents/helper/async`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${account.secret}` },
      body: JSON.stringify({ conversationKey: 'k', message: 'later' }),
    });
    expect(submitted.status).toBe(202);
    const { eventId } = (await submitted.json()) as { eventId: string };
    await setDisabled(true);
    await stack.restart();
    await stack.idle();
    expect(stack.model.callCount()).toBe(0);
    expect(await stack.core.asyncRequests.status(account.accountId, eventId)).toMatchObject({ status: 'failed', error: 'This account is disabled; it runs no turns.' });
  });

  it('does not run the continuation when async tools settle after it was disabled', async () => {
    const worker = await startRecordingWorker();
    try {
      await stack.putAgent(account.secret, 'dispatcher', {
        provider: stack.provider(),
        tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: stack.agentUrl, completionBearerToken: account.secret, workerUrl: worker.dispatchUrl } },
      });
      const answer = (await (await stack.chat(account.secret, 'dispatcher', { conversationKey: 'k', message: 'call test_external_async {"task":"later"}' })).json()) as { status: string; eventId: string };
      expect(answer.status).toBe('waiting_async_tools');
      const calls = stack.model.callCount();
      await setDisabled(true);
      const [dispatch] = worker.dispatches;
      const settled = await stack.core.asyncSettlement.settle(dispatch!.resultId, { status: 'completed', response: { done: true } }, 'endpoint', account.accountId);
      expect(settled.claimed).toBe(true);
      // What a settling completion does with its claim: the continuation goes to the run queue.
      await stack.core.asyncCompletions.resume(settled.group!);
      await stack.idle();
      expect(stack.model.callCount()).toBe(calls);
      expect(await stack.core.asyncRequests.status(account.accountId, answer.eventId)).toMatchObject({ status: 'failed', error: 'This account is disabled; it runs no turns.' });
      // Recovery at the next boot does not hand the refused continuation over again.
      await stack.restart();
      await stack.idle();
      expect(stack.model.callCount()).toBe(calls);
    } finally {
      await worker.close();
    }
  });

  it('starts no turn through the core either (subagents and every other driver go through it)', async () => {
    await setDisabled(true);
    await expect(
      stack.core.turns.start({ accountId: account.accountId, agentId: 'helper', conversationKey: 'k', input: { kind: 'user', message: { role: 'user', content: 'x' } }, transport: 'async', approvalPolicy: 'deny' }),
    ).rejects.toThrow('This account is disabled');
    expect(stack.model.callCount()).toBe(0);
  });
});
