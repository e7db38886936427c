import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from './support/playground-browser.js';
import { conversationKeyOf, type PlaygroundStack, sendMessage, startPlaygroundStack } from './support/playground-stack.js';

const citySchema = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } }, required: ['city', 'days'], additionalProperties: false };

/** The structured output block's JSON, parsed (it must be JSON, not markup). */
async function shownOutput(page: Page): Promise<unknown> {
  const text = await page.getByRole('region', { name: 'Structured output' }).locator('pre').textContent();
  return JSON.parse(text ?? 'null');
}

describe('the web playground: who answered, and structured output', () => {
  let playground: PlaygroundStack;

  beforeAll(async () => {
    playground = await startPlaygroundStack('playground-structured');
    // The fixture model (OpenAI Responses API) under `config.model`, with a structured output.
    await playground.stack.putAgent(playground.account.secret, 'planner', {
      system: 'Plans trips.',
      provider: playground.stack.provider(),
      model: { provider: 'openai', id: 'fixture-model', output: { type: 'object', schema: citySchema, name: 'trip' } },
    });
  }, 60_000);

  afterAll(async () => {
    await playground?.close();
  });

  it('shows the model that answered and the output as JSON, live and after a reload', async () => {
    const { page, problems } = await playground.openPage();
    await playground.signIn(page);
    await page.getByLabel('Agent').selectOption('planner');
    await page.locator('[data-chat-status="ready"]').waitFor();
    // A value with markup in it: shown as text, never parsed as HTML.
    await sendMessage(page, 'json: {"city":"<b>Oslo</b>","days":3}');
    const answer = page.locator('.message.assistant');
    await answer.locator('.answered-by').waitFor();
    await page.locator('[data-chat-status="ready"]').waitFor();
    await screenshot(page, 'structured-output');
    expect(await answer.locator('.answered-by').textContent()).toBe('answered by openai/fixture-model');
    expect(await shownOutput(page)).toEqual({ city: '<b>Oslo</b>', days: 3 });
    expect(await answer.locator('b').count()).toBe(0);

    const stored = await playground.conversation('planner', conversationKeyOf(page));
    expect(stored.messages.at(-1)).toMatchObject({ role: 'assistant', output: { city: '<b>Oslo</b>', days: 3 }, usage: { provider: 'openai', model: 'fixture-model' } });

    await page.reload();
    await page.locator('[data-chat-status="ready"]').waitFor();
    await expect.poll(() => page.locator('.message').count()).toBe(2);
    await expect.poll(() => answer.locator('.answered-by').textContent()).toBe('answered by openai/fixture-model');
    expect(await shownOutput(page)).toEqual({ city: '<b>Oslo</b>', days: 3 });
    expect(await page.getByRole('region', { name: 'Structured output' }).count()).toBe(1);
    expect(await problems.list()).toEqual([]);
  });

  it('names who answered a turn without structured output, and shows no output block', async () => {
    const { page } = await playground.openPage('narrow');
    await playground.signIn(page);
    await sendMessage(page, 'hello, who is there?');
    await page.locator('.message.assistant .answered-by').waitFor();
    expect(await page.locator('.message.assistant .answered-by').textContent()).toBe('answered by openai/fixture-model');
    expect(await page.locator('.message.user .answered-by').count()).toBe(0);
    expect(await page.getByRole('region', { name: 'Structured output' }).count()).toBe(0);
  });
});
