import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCuttingProxy } from '../support/cutting-proxy.js';
import { screenshot } from './support/playground-browser.js';
import { conversationKeyOf, type PlaygroundStack, sendMessage, startPlaygroundStack } from './support/playground-stack.js';

/**
 * Cancel and resume from the page. They need `POST .../conversations/{key}/cancel` and
 * `GET .../conversations/{key}/stream` on the agent service.
 */
describe('the web playground: cancel and resume', () => {
  let playground: PlaygroundStack;

  beforeAll(async () => {
    playground = await startPlaygroundStack('playground-run-control');
  }, 60_000);

  afterAll(async () => {
    await playground?.close();
  });

  it('cancels a running turn from the Cancel button', async () => {
    const { page } = await playground.openPage();
    await playground.signIn(page);
    await sendMessage(page, 'slow: 20000\nthis answer never comes');
    await page.locator('[data-chat-status="busy"]').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('.turn-status.status-cancelled').waitFor({ timeout: 10_000 });
    await page.locator('[data-chat-status="ready"]').waitFor();
    await screenshot(page, 'cancelled');
    const stored = await playground.conversation('demo', conversationKeyOf(page));
    // The user's message is stored; no answer to it is (the model was cut off before its first word).
    const answers = (stored.messages as { role: string }[]).filter((message) => message.role === 'assistant');
    expect(JSON.stringify(answers)).not.toContain('this answer never comes');
  });

  it('resumes a turn after the page lost its connection (a reload mid-turn)', async () => {
    const { page } = await playground.openPage();
    await playground.signIn(page);
    await sendMessage(page, 'slow: 3000\nthe answer after the drop');
    await page.locator('[data-chat-status="busy"]').waitFor();
    await page.reload();
    // Nothing is sent again: the answer can only arrive through the resumed stream.
    await page.locator('.message.assistant .text', { hasText: 'the answer after the drop' }).waitFor({ timeout: 15_000 });
    await page.locator('[data-chat-status="ready"]').waitFor();
    await screenshot(page, 'resumed');
    expect(await page.locator('.message.user').count()).toBe(1);
  });

  it('picks the turn up by itself when the browser is back online after the stream broke off', async () => {
    // The page goes through a proxy that cuts the chat stream after its first step begins.
    const proxy = await startCuttingProxy(playground.stack.agentUrl, '{"type":"start-step"}');
    try {
      const { context, page } = await playground.openPage('desktop', proxy.url);
      await playground.signIn(page);
      await sendMessage(page, 'slow: 1500\nthe answer after going offline');
      await page.locator('[data-chat-status="error"]').waitFor();
      expect(proxy.cuts()).toBe(1);
      await context.setOffline(true);
      await context.setOffline(false);
      // No click and no reload: only the page's `online` handler can bring the answer.
      await page.locator('.message.assistant .text', { hasText: 'the answer after going offline' }).waitFor({ timeout: 15_000 });
      await page.locator('[data-chat-status="ready"]').waitFor();
      expect(await page.locator('.message.user').count()).toBe(1);
    } finally {
      await proxy.close();
    }
  });
});
