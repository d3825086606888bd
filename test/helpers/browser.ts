// Headless Chromium (Debian's /usr/bin/chromium, or $CHROMIUM) through playwright-core for a dashboard suite: one
// page opened before the suite and closed after it, with every URL answered 404 kept for the suite to check.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';

export interface BrowserEnv {
  page: Page;
  /** URLs the page asked for that were answered 404. */
  missing: string[];
}

/** Call at suite level; `page` is set once the suite's `before` has run. */
export function useBrowser(viewport = { width: 1400, height: 900 }): BrowserEnv {
  const env = { missing: [] as string[] } as BrowserEnv;
  let browser: Browser | undefined;
  before(async () => {
    assert.ok(existsSync(chromiumPath), `${chromiumPath} is missing: .ci/run installs Debian's chromium`);
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    env.page = await browser.newPage({ viewport });
    env.page.on('response', (r) => {
      if (r.status() === 404) env.missing.push(r.url());
    });
  });
  after(async () => {
    await browser?.close();
  });
  return env;
}
