// Every page of the dashboard, signed out and signed in, at 1280 px and at 375 px (issue 47, items 4 and 8):
// no page is wider than the window (scrollWidth <= innerWidth), axe-core finds no serious or critical
// violation (the colour rules at 1280 px only: a page's colours do not change with its width), and a
// full-page screenshot of each is written to test-results/screenshots/widths-<page>-<width>.png. One browser
// page walks it all, resized between the widths, so the walk costs page loads, not browser starts. Every
// finding is collected and the walk goes on, so one failure names every page it concerns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { createKey } from '../api-keys/keys.ts';
import { call, invite, tokenOf } from '../members/support.ts';
import type { Requests } from '../../src/modules/requests/index.ts';
import {
  DESKTOP,
  launchBrowser,
  PHONE,
  screenshot,
  seriousViolations,
  type Launched,
  type Session,
} from './support/browser.ts';
import { settled, signInWith } from './support/dashboard.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

let svc: TestService;
let browser: Launched;
let receiver: Receiver;
let merchant: TestMerchant;
const ids: Record<string, string> = {};

async function api(method: string, url: string, payload?: object): Promise<any> {
  const res = await call(svc.app, merchant.auth, method, url, payload);
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body?.data;
}

beforeAll(async () => {
  [svc, browser, receiver] = await Promise.all([
    startTestService({ listen: true, workers: true }),
    launchBrowser(),
    startReceiver(),
  ]);
  merchant = await signupMerchant(svc.app, 'Widths & Sons Trading Company');
  const app = await api('POST', '/developer/apps', {
    name: 'Inventory Sync',
    description: 'Keeps stock levels in step with the warehouse.',
    redirect_uris: ['https://sync.example.com/oauth/callback'],
    allowed_scopes: ['public:read'],
  });
  ids.app = app.id;
  const key = await createKey(svc.app, merchant);
  const wh = await api('POST', '/webhooks', {
    url: `${receiver.url}/a/rather/long/path/that/a/phone/has/to/wrap/somewhere`,
    events: ['order.created', 'order.paid'],
    description: 'Fulfilment service',
  });
  ids.webhook = wh.id;
  ids.delivery = (await api('POST', `/webhooks/${wh.id}/test`, { event: 'order.paid' })).id;
  await api('POST', '/webhooks', {
    url: 'https://hooks.example.com/app',
    events: ['order.paid'],
    app_id: app.id,
  });
  ids.event = (await api('POST', '/events/trigger', { type: 'order.paid' })).id;
  // A refused public call with a body: its detail page has a long path, an error body and field names.
  const res = await fetch(`${svc.url}/api/public/v1/stores/store_${'x'.repeat(58)}/cart`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.secret_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ customer_email: 'ann@example.com', card_token: 'tok_secret_value_never_shown' }),
  });
  ids.request = ((await res.json()) as { error: { request_id: string } }).error.request_id;
  await (svc.modules.find((m) => m.name === 'requests') as Requests).batch.flush();
  ids.join = tokenOf((await invite(svc.app, merchant, 'newcomer@example.com', 'developer')).url);
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await svc?.close();
});

const DEV = '/dashboard/settings/developers';
const SIGNED_OUT: [string, () => string, string][] = [
  ['signin', () => '/dashboard/signin', 'Sign in to your account'],
  ['signup', () => '/dashboard/signup', 'Create your account'],
  ['join', () => `/dashboard/join#token=${ids.join}`, 'Join Widths & Sons Trading Company'],
];
const SIGNED_IN: [string, () => string][] = [
  ['team', () => '/dashboard/settings/team'],
  ['account', () => '/dashboard/settings/account'],
  ['apps', () => `${DEV}/apps`],
  ['app-new', () => `${DEV}/apps/new`],
  ['app', () => `${DEV}/apps/${ids.app}`],
  ['connected-apps', () => `${DEV}/connected-apps`],
  ['keys', () => `${DEV}/keys`],
  ['webhooks', () => `${DEV}/webhooks`],
  ['webhook-new', () => `${DEV}/webhooks/new`],
  ['webhook', () => `${DEV}/webhooks/${ids.webhook}`],
  ['delivery', () => `${DEV}/webhooks/${ids.webhook}/deliveries/${ids.delivery}`],
  ['attempts', () => `${DEV}/webhooks/attempts`],
  ['events', () => `${DEV}/events`],
  ['event', () => `${DEV}/events/${ids.event}`],
  ['logs', () => `${DEV}/logs`],
  ['requests', () => `${DEV}/requests`],
  ['request', () => `${DEV}/requests/${ids.request}`],
  ['not-found', () => '/dashboard/nowhere'],
];

/** What is wrong with the page as shown: wider than the window, axe findings, console errors. */
async function findings(page: Page, errors: string[], name: string, width: number): Promise<string[]> {
  await settled(page);
  const found: string[] = [];
  const { scroll, inner } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth,
  }));
  if (scroll > inner) found.push(`${name} at ${width} px is ${scroll} px wide`);
  for (const v of await seriousViolations(page, { colours: width === DESKTOP.width })) {
    found.push(`${name} at ${width} px: ${v}`);
  }
  for (const e of errors.splice(0)) found.push(`${name} at ${width} px: ${e}`);
  await screenshot(page, `widths-${name}-${width}`);
  return found;
}

let s: Session;
let started = 0;

describe('every page at 1280 and 375 px', () => {
  beforeAll(async () => {
    started = Date.now();
    s = await browser.open({ viewport: DESKTOP });
  });
  afterAll(async () => {
    await s?.close();
    console.info(
      `widths walk: ${SIGNED_OUT.length + SIGNED_IN.length} pages at 2 widths in ${Date.now() - started} ms`,
    );
  });

  it('signed out', async () => {
    const { page } = s;
    const found: string[] = [];
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      for (const [name, path, heading] of SIGNED_OUT) {
        await page.goto('about:blank');
        await page.goto(svc.url + path());
        await page.getByRole('heading', { name: heading }).waitFor();
        found.push(...(await findings(page, s.errors, name, viewport.width)));
      }
    }
    expect(found).toEqual([]);
  });

  for (const viewport of [DESKTOP, PHONE]) {
    it(`signed in, at ${viewport.width} px`, { timeout: 300_000 }, async () => {
      const { page } = s;
      if (viewport === DESKTOP) await signInWith(page, svc.url, merchant);
      await page.setViewportSize(viewport);
      const found: string[] = [];
      for (const [name, path] of SIGNED_IN) {
        await page.goto(svc.url + path());
        await page.getByRole('heading', { level: 1 }).waitFor();
        found.push(...(await findings(page, s.errors, name, viewport.width)));
      }
      expect(found).toEqual([]);
    });
  }

  it("shows a request's body field names, never their values", async () => {
    const { page } = s;
    await page.goto(`${svc.url}${DEV}/requests/${ids.request}`);
    const fields = page.getByRole('list', { name: 'Body fields' });
    expect(await fields.textContent()).toBe('customer_emailcard_token');
    expect(await page.locator('main').textContent()).not.toContain('tok_secret_value_never_shown');
  });
});
