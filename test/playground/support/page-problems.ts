import type { Page } from 'playwright-core';

/** What the page reported while it was watched: console errors, uncaught errors and Content-Security-Policy violations. */
export interface PageProblems {
  /** Everything collected so far, one line each. */
  list(): Promise<string[]>;
}

/**
 * Starts watching `page` (call it before `goto`). A CSP violation is caught twice: as the console
 * error Chromium prints, and as the `securitypolicyviolation` event, which fires even when the
 * script that caused it swallowed the error (as zod's eval probe does).
 */
export async function watchPageProblems(page: Page): Promise<PageProblems> {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // Added through the browser's own API, so the page's CSP does not apply to it.
  await page.addInitScript(`
    globalThis.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (event) => globalThis.cspViolations.push('CSP violation: ' + event.violatedDirective + ' (' + (event.blockedURI || 'inline') + ')'));
  `);
  return {
    list: async () => [...problems, ...((await page.evaluate('globalThis.cspViolations ?? []')) as string[])],
  };
}
