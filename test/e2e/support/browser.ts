// Debian's Chromium driven by playwright-core (the machine cannot download Playwright's browsers), one per
// Vitest worker, a fresh context per session, and every console error or page error collected so a test can
// fail on it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = join(import.meta.dirname, '../../../test-results/screenshots');
export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 375, height: 740 };

export interface Session {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and failed requests seen so far. */
  errors: string[];
  close(): Promise<void>;
}

export interface Launched {
  browser: Browser;
  open(options?: { viewport?: { width: number; height: number } }): Promise<Session>;
  close(): Promise<void>;
}

// The worker's Chromium: launched by its first browser test and shared by the files after it (the worker
// keeps this module from file to file, isolate: false). A launch per file cost each file a second or two of
// the two cores. Playwright ends it with the worker's process (and Chromium ends when its pipe closes).
let workerBrowser: Promise<Browser> | undefined;

function launchOnce(): Promise<Browser> {
  workerBrowser ??= chromium
    .launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-quic',
        '--no-first-run',
        '--disable-component-update',
        '--disable-sync',
      ],
    })
    .then((browser) => {
      browser.on('disconnected', () => (workerBrowser = undefined));
      return browser;
    })
    .catch((err: unknown) => {
      workerBrowser = undefined;
      throw err;
    });
  return workerBrowser;
}

/** The worker's Chromium for one test file: close() closes the contexts the file opened, not the browser. */
export async function launchBrowser(): Promise<Launched> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`);
  const browser = await launchOnce();
  const contexts = new Set<BrowserContext>();
  return {
    browser,
    async open(options = {}) {
      const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP, locale: 'en-US' });
      contexts.add(context);
      context.on('close', () => contexts.delete(context));
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      context.setDefaultTimeout(10_000);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(`console: ${m.text()} (${m.location().url})`);
      });
      page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
      return { context, page, errors, close: () => context.close() };
    },
    async close() {
      await Promise.all([...contexts].map((c) => c.close()));
    },
  };
}

/** The rules that compute colours: two thirds of a scan's time, and a page's colours do not change with its width. */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/**
 * Serious and critical axe-core violations of the page as it is now, as readable lines. `colours: false` skips
 * the colour rules, for a view already scanned with them at another width. Axe runs in the page itself (legacy
 * mode): the dashboard has no frames to scan, and the default mode opened a second page for each scan to merge
 * the frames' results, about half of a scan's 650 ms (33 of the widths walk's 58 s went to 51 scans; 17 s so).
 */
export async function seriousViolations(page: Page, { colours = true } = {}): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .disableRules(colours ? [] : COLOUR_RULES)
    .setLegacyMode()
    .analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
