import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from './support/playground-browser.js';
import { conversationKeyOf, type PlaygroundStack, sendMessage, startPlaygroundStack } from './support/playground-stack.js';

type Part = Record<string, unknown>;

function parts(messages: { role: string; content: unknown }[], type: string): Part[] {
  return messages.flatMap((message) => (Array.isArray(message.content) ? (message.content as Part[]) : [])).filter((part) => part.type === type);
}

describe('the web playground in headless chromium', () => {
  let playground: PlaygroundStack;

  beforeAll(async () => {
    playground = await startPlaygroundStack('playground-user');
  }, 60_000);

  afterAll(async () => {
    await playground?.close();
  });

  it('refuses a wrong secret, signs in with the right one, and keeps it out of the URL', async () => {
    const { page } = await playground.openPage();
    await screenshot(page, 'sign-in');
    await page.getByLabel('Account secret').fill('not-a-secret');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/secret|bearer|unauthorized/i);
    await playground.signIn(page);
    expect(page.url()).not.toContain(playground.account.secret);
    expect(await page.evaluate("sessionStorage.getItem('harness.playground.secret')")).toBe(playground.account.secret);
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect(await page.getByLabel('Agent').inputValue()).toBe('demo');
  });

  it('streams a reply, and a reload finds the conversation again', async () => {
    const { page } = await playground.openPage('narrow');
    await playground.signIn(page);
    await sendMessage(page, 'hello from the playground');
    await page.getByText('hello from the playground').nth(1).waitFor();
    await page.locator('[data-chat-status="ready"]').waitFor();
    await screenshot(page, 'chat');
    const key = conversationKeyOf(page);
    const stored = await playground.conversation('demo', key);
    expect(stored.messages.map((message) => message.role)).toEqual(['user', 'assistant']);

    await page.reload();
    await page.locator('[data-chat-status="ready"]').waitFor();
    expect(conversationKeyOf(page)).toBe(key);
    await expect.poll(() => page.locator('.message').count()).toBe(2);
    await expect.poll(() => page.locator('.message.assistant .text').textContent()).toContain('hello from the playground');
  });

  it('approves a tool call with a reason, using the keyboard, and shows its input and output', async () => {
    const { page } = await playground.openPage();
    await playground.signIn(page);
    await sendMessage(page, 'search: otters');
    const tool = page.getByRole('region', { name: 'Tool alphaSearch' });
    await tool.getByRole('button', { name: 'Approve' }).waitFor();
    await expect.poll(() => tool.locator('pre').first().textContent()).toContain('otters');
    await screenshot(page, 'approval');
    await tool.getByLabel('Reason (optional)').fill('fine by me');
    await tool.getByLabel('Reason (optional)').press('Enter');
    await tool.locator('[data-state="output-available"]').waitFor();
    await page.locator('[data-chat-status="ready"]').waitFor();
    await expect.poll(() => tool.getByText('Output').count()).toBe(1);
    await screenshot(page, 'approved');

    const stored = await playground.conversation('demo', conversationKeyOf(page));
    const [answer] = parts(stored.messages, 'tool-approval-response');
    expect(answer).toMatchObject({ approved: true, reason: 'fine by me' });
    expect(parts(stored.messages, 'tool-result').map((part) => part.toolName)).toEqual(['alphaSearch']);
  });

  it('denies a tool call with a reason, and nothing runs', async () => {
    const { page } = await playground.openPage('narrow');
    await playground.signIn(page);
    await sendMessage(page, 'search: secrets');
    const tool = page.getByRole('region', { name: 'Tool alphaSearch' });
    await tool.getByLabel('Reason (optional)').fill('not today');
    await tool.getByRole('button', { name: 'Deny' }).click();
    await tool.locator('[data-state="output-denied"]').waitFor();
    await page.locator('[data-chat-status="ready"]').waitFor();
    await screenshot(page, 'denied');

    const stored = await playground.conversation('demo', conversationKeyOf(page));
    expect(parts(stored.messages, 'tool-approval-response')[0]).toMatchObject({ approved: false, reason: 'not today' });
    const results = parts(stored.messages, 'tool-result');
    expect(results.every((part) => (part.output as Part).type === 'execution-denied')).toBe(true);
  });

  it('works by the names a person sees (sign in, chat, approve, deny), stores what was answered, and logs no error or CSP violation', async () => {
    const { page, problems } = await playground.openPage();
    await page.getByLabel('Account secret').fill(playground.account.secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByLabel('Agent').inputValue()).toBe('demo');
    const send = async (text: string) => {
      await page.getByLabel('Message').fill(text);
      await page.getByRole('button', { name: 'Send' }).click();
    };

    await send('hello by name');
    await page.getByText('Echo: hello by name').waitFor();
    await send('search: approved otters');
    await page.getByRole('button', { name: /approve/i }).click();
    await page.getByRole('region', { name: 'Tool alphaSearch' }).locator('[data-state="output-available"]').waitFor();
    await send('search: denied otters');
    await page.getByLabel('Reason').fill('not this one');
    await page.getByRole('button', { name: /deny/i }).click();
    await page.locator('[data-state="output-denied"]').waitFor();
    await page.locator('[data-chat-status="ready"]').waitFor();

    const stored = await playground.conversation('demo', conversationKeyOf(page));
    const userTexts = stored.messages.filter((message) => message.role === 'user').map((message) => JSON.stringify(message.content));
    expect(userTexts).toEqual([expect.stringContaining('hello by name'), expect.stringContaining('search: approved otters'), expect.stringContaining('search: denied otters')]);
    expect(parts(stored.messages, 'tool-approval-response')).toEqual([
      expect.objectContaining({ approved: true }),
      expect.objectContaining({ approved: false, reason: 'not this one' }),
    ]);
    const outputs = parts(stored.messages, 'tool-result').map((part) => (part.output as Part).type);
    expect(outputs).toEqual([expect.not.stringMatching(/denied|error/), 'execution-denied']);
    expect(await problems.list()).toEqual([]);
  });

  it('shows a call of a tool the agent does not have (a dynamic-tool part) with its error', async () => {
    const { page } = await playground.openPage();
    await playground.signIn(page);
    await sendMessage(page, 'call! missing_tool {"city":"Oslo"}\nthen done');
    const tool = page.getByRole('region', { name: 'Tool missing_tool' });
    await tool.locator('[data-state="output-error"]').waitFor();
    await expect.poll(() => tool.textContent()).toContain("unavailable tool 'missing_tool'");
    // A tool's error is its own message, not described as a failed model call.
    expect(await tool.textContent()).not.toContain('model call failed');
    await expect.poll(() => tool.locator('pre').first().textContent()).toContain('Oslo');
  });

  it('shows an async tool pending, then its result arriving', async () => {
    const { page } = await playground.openPage();
    await playground.signIn(page);
    await sendMessage(page, 'call test_async {"label":"otter census"}');
    const tool = page.getByRole('region', { name: 'Tool test_async' });
    await tool.getByText('async: pending').waitFor();
    await screenshot(page, 'async-pending');
    const settled = page.getByRole('region', { name: 'Async result test_async' });
    await settled.getByText('async: completed').waitFor();
    await page.locator('[data-chat-status="ready"]').waitFor();
    await expect.poll(() => settled.locator('pre').textContent()).toContain('otter census');
    await screenshot(page, 'async-settled');

    // After a reload the settled result comes from the stored conversation, in the same shape.
    await page.reload();
    await page.getByRole('region', { name: 'Async result test_async' }).getByText('async: completed').waitFor();
  });

  it('lists cron jobs with their next runs, and pauses and resumes one', async () => {
    const created = await fetch(`${playground.stack.accountUrl}/accounts/me/cron-jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${playground.account.secret}` },
      body: JSON.stringify({ name: 'morning digest', agentId: 'demo', conversationKey: 'cron:digest', prompt: 'Summarise.', scheduleExpression: 'cron(0 9 * * ? *)', timezone: 'Europe/Berlin' }),
    });
    expect(created.status).toBe(201);
    const job = (await created.json()) as { cronJobId: string };
    const { page } = await playground.openPage('narrow');
    await playground.signIn(page);
    await page.getByRole('button', { name: 'Cron jobs' }).click();
    const card = page.getByRole('listitem', { name: 'Cron job morning digest' });
    await card.locator('[data-cron-status="active"]').waitFor();
    await expect.poll(() => card.getByText('cron(0 9 * * ? *)').count()).toBe(1);
    await screenshot(page, 'cron-jobs');
    await card.getByRole('button', { name: 'Pause morning digest' }).press('Enter');
    await card.locator('[data-cron-status="paused"]').waitFor();
    const read = async () =>
      ((await (await fetch(`${playground.stack.accountUrl}/accounts/me/cron-jobs/${job.cronJobId}`, { headers: { authorization: `Bearer ${playground.account.secret}` } })).json()) as { status: string; nextRunAt: string | null });
    expect(await read()).toMatchObject({ status: 'paused', nextRunAt: null });
    await card.getByRole('button', { name: 'Resume morning digest' }).click();
    await card.locator('[data-cron-status="active"]').waitFor();
    expect((await read()).status).toBe('active');
  });
});
