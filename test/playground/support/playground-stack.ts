import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildPlayground } from '../../../scripts/build-playground.js';
import { searchKey, startChatStack, type ChatStack } from '../../support/chat-stack.js';
import { type PageProblems, watchPageProblems } from './page-problems.js';
import { launchChromium, viewports } from './playground-browser.js';

export interface PlaygroundStack {
  stack: ChatStack;
  browser: Browser;
  account: { accountId: string; secret: string };
  /** A fresh browser context (its own session storage) on the playground page (at `origin`, default the agent service), watched for console errors and CSP violations from the start. */
  openPage(viewport?: keyof typeof viewports, origin?: string): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }>;
  /** Signs in on the page with the account secret and waits for the chat. */
  signIn(page: Page): Promise<void>;
  /** The stored conversation, read through the API (what the page's actions stored). */
  conversation(agentId: string, conversationKey: string): Promise<{ messages: { role: string; content: unknown }[] }>;
  close(): Promise<void>;
}

/**
 * The real services (in-process, on loopback, real storage) with the playground on, the fake
 * model, an account with a `demo` agent (an approval tool and an async tool), and chromium.
 */
export async function startPlaygroundStack(username: string): Promise<PlaygroundStack> {
  await buildPlayground();
  const stack = await startChatStack({ playground: true, alphaApiKey: searchKey });
  let browser: Browser | undefined;
  try {
    const account = await stack.createAccount(username);
    await stack.putAgent(account.secret, 'demo', {
      system: 'Playground test agent.',
      provider: stack.provider(),
      tools: { alphaSearch: { needsApproval: true, maxResults: 2 }, test_async: { async: true, execution: 'same-invocation', durationMs: 1500 } },
    });
    browser = await launchChromium();
    const opened: BrowserContext[] = [];
    const launched = browser;
    return {
      stack,
      browser: launched,
      account,
      openPage: async (viewport = 'desktop', origin = stack.agentUrl) => {
        const context = await launched.newContext({ viewport: viewports[viewport] });
        opened.push(context);
        const page = await context.newPage();
        const problems = await watchPageProblems(page);
        await page.goto(`${origin}/playground`);
        return { context, page, problems };
      },
      signIn: async (page) => {
        await page.getByLabel('Account secret').fill(account.secret);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByLabel('Agent').waitFor();
        await page.locator('[data-chat-status="ready"]').waitFor();
      },
      conversation: async (agentId, conversationKey) => {
        const response = await fetch(`${stack.agentUrl}/agents/${agentId}/conversations/${encodeURIComponent(conversationKey)}`, { headers: { authorization: `Bearer ${account.secret}` } });
        if (response.status !== 200) throw new Error(`conversation: ${response.status} ${await response.text()}`);
        return (await response.json()) as { messages: { role: string; content: unknown }[] };
      },
      close: async () => {
        for (const context of opened) await context.close().catch(() => undefined);
        await launched.close();
        await stack.close();
      },
    };
  } catch (error) {
    await browser?.close();
    await stack.close();
    throw error;
  }
}

/** The conversation key the page shows in its URL hash. */
export function conversationKeyOf(page: Page): string {
  const key = new URLSearchParams(new URL(page.url()).hash.slice(1)).get('conversation');
  if (!key) throw new Error(`no conversation in ${page.url()}`);
  return key;
}

/** Types a message and sends it with the keyboard (Enter), as a user would. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  const input = page.getByRole('textbox', { name: 'Message' });
  await input.fill(text);
  await input.press('Enter');
}
