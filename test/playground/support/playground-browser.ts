import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { type Browser, chromium, type Page } from 'playwright-core';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless Debian chromium, driven by playwright-core. A missing browser fails, never skips. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) throw new Error(`No chromium at ${chromiumPath}: apt-get install chromium (or set CHROMIUM_PATH).`);
  // --no-sandbox: the tests run as root, where chromium's own sandbox refuses to start.
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--headless'] });
}

export const viewports = {
  narrow: { width: 360, height: 740 },
  desktop: { width: 1280, height: 800 },
} as const;

const screenshotFolder = new URL('../../../docs/playground/', import.meta.url);

/**
 * With `PLAYGROUND_SCREENSHOTS=1`, saves the page as `docs/playground/<name>-<viewport>.png`
 * at both widths (the docs show them); otherwise does nothing, so a test run leaves the
 * repository unchanged.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.PLAYGROUND_SCREENSHOTS !== '1') return;
  await mkdir(screenshotFolder, { recursive: true });
  const original = page.viewportSize();
  for (const [label, size] of Object.entries(viewports)) {
    await page.setViewportSize(size);
    await page.screenshot({ path: new URL(`${name}-${label}.png`, screenshotFolder).pathname });
  }
  if (original) await page.setViewportSize(original);
}
