// What a newcomer met in the dashboard, checked in Chromium: each guide opened from the dashboard shows the
// signed-in merchant's store id in its snippets; a failing endpoint reads "Failing" beside "Enabled" with
// what happened in words (connection refused, timed out after 1 s, HTTP 503); a retrying delivery has one
// status name on the endpoint, the events list and the event page; with sign-up closed there is no link to
// it; and at 375 px every tab is reachable, the hint says more tabs lie to the right, the test banner keeps
// to one line, and no page scrolls sideways.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { INTERNAL_TOKEN } from '../webhooks/helpers.ts';
import { eventually } from '../support/eventually.ts';
import { freePort } from '../support/processes.ts';
import { sampleData } from '../../src/modules/events/index.ts';
import { GUIDES } from '../../src/modules/dashboard/guides.ts';
import { PHONE, launchBrowser, type Launched, type Session } from './support/browser.ts';
import { openTab, settled, signInWith } from './support/dashboard.ts';

let svc: TestService;
let closed: TestService;
let browser: Launched;
let rx: Receiver;
let silent: Server;
const sockets: Socket[] = [];
let merchant: TestMerchant;

async function call(method: 'GET' | 'POST', url: string, payload?: object): Promise<any> {
  const res = await svc.app.inject({
    method,
    url: `/api/v1/merchant${url}`,
    headers: merchant.auth,
    payload,
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json().data;
}

async function signIn(session: Session, base = svc.url) {
  await signInWith(session.page, base, merchant);
}

beforeAll(async () => {
  // An endpoint that takes the connection and never answers: the attempt times out after 1 s.
  silent = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  [svc, closed, browser, rx] = await Promise.all([
    startTestService({
      listen: true,
      workers: true,
      env: {
        SVC_INTERNAL_TOKEN: INTERNAL_TOKEN,
        SVC_WEBHOOK_TIMEOUT_MS: '1000',
        // The first retry in 10 minutes: a failed delivery stays pending (retrying) for the whole test.
        SVC_WEBHOOK_RETRY_SCHEDULE: '600',
      },
    }),
    startTestService({ listen: true, env: { SVC_SIGNUP: 'off' } }),
    launchBrowser(),
    startReceiver(() => ({ status: 503 })),
  ]);
  merchant = await signupMerchant(svc.app, 'Corner Shop');
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  silent?.close();
  await browser?.close();
  await rx?.close();
  await Promise.all([svc?.close(), closed?.close()]);
});

describe('the guides, from the dashboard', () => {
  it('opens each guide from the dashboard and finds the merchant store id in its snippets', async () => {
    // A test key pair, so the snippets show its publishable key too.
    const pair = await call('POST', '/api-keys', { name: 'Guides' });
    const s = await browser.open();
    await signIn(s);
    for (const guide of GUIDES) {
      await s.page.goto(`${svc.url}/dashboard/settings/developers/apps`);
      await s.page.getByRole('definition').getByRole('link', { name: guide.title, exact: true }).click();
      await s.page.waitForURL(`${svc.url}/guides/${guide.name}`);
      await s.page.getByRole('navigation', { name: 'Guides' }).waitFor();
      expect(await s.page.locator('.guide-account').textContent()).toContain(merchant.storeId);
      // The audit log belongs to the merchant, not to a store: its guide's snippets name the merchant.
      const own = guide.name === 'audit' ? merchant.merchantId : merchant.storeId;
      const snippets = s.page.locator('main pre', { hasText: own });
      expect(await snippets.count(), guide.name).toBeGreaterThan(0);
      expect(await s.page.locator('main pre', { hasText: 'store_...' }).count(), guide.name).toBe(0);
    }
    // The receiver guide from the Webhooks tab, with the merchant's id and key where the snippets name them.
    await s.page.goto(`${svc.url}/dashboard/settings/developers/webhooks`);
    await s.page.getByRole('link', { name: 'Receiving webhooks' }).first().click();
    await s.page.waitForURL(`${svc.url}/guides/webhooks`);
    expect(
      await s.page.locator('main pre', { hasText: `"merchant_id":"${merchant.merchantId}"` }).count(),
    ).toBe(1);
    await s.page.goto(`${svc.url}/guides/api-keys`);
    expect(await s.page.locator('main pre', { hasText: pair.publishable_key }).count()).toBeGreaterThan(0);
    // Styled by the dashboard's own stylesheet, under the page's CSP: nothing refused, nothing logged.
    expect(await s.page.locator('.topbar').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(
      'rgb(255, 255, 255)',
    );
    expect(s.errors).toEqual([]);
    await s.close();
  });
});

describe('webhook health at a glance', () => {
  it('reads Failing beside Enabled, with the cause in words, and one status name per delivery', async () => {
    const refused = `http://127.0.0.1:${await freePort()}/hooks`;
    const slow = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hooks`;
    const hooks = {
      'connection refused': await call('POST', '/webhooks', { url: refused, events: ['order.created'] }),
      'timed out after 1 s': await call('POST', '/webhooks', { url: slow, events: ['order.created'] }),
      'HTTP 503': await call('POST', '/webhooks', { url: `${rx.url}/busy`, events: ['order.created'] }),
    };
    const ingested = await svc.app.inject({
      method: 'POST',
      url: '/internal/v1/events',
      headers: { authorization: `Bearer ${INTERNAL_TOKEN}` },
      payload: {
        merchant_id: merchant.merchantId,
        mode: 'test',
        type: 'order.created',
        data: sampleData('order.created'),
      },
    });
    const eventId = ingested.json().data.id as string;
    for (const hook of Object.values(hooks)) {
      await eventually(
        async () => ((await call('GET', `/webhooks/${hook.id}`)).health.failing_since ? true : undefined),
        { timeoutMs: 20_000, what: `the first failed attempt to ${hook.id}` },
      );
    }

    const s = await browser.open();
    await signIn(s);
    await openTab(s.page, 'Webhooks');
    await settled(s.page);
    for (const [words, hook] of Object.entries(hooks)) {
      const row = s.page.locator('tbody tr', { hasText: new URL(hook.url).host });
      await expect.poll(() => row.locator('[data-status]').allTextContents()).toEqual(['enabled', 'failing']);
      expect(await row.getByTestId('last-response').textContent()).toBe(words);
    }
    // A red badge: the same tone as a failed delivery's.
    expect(await s.page.locator('[data-status="failing"]').first().getAttribute('class')).toContain(
      'badge-red',
    );

    // One name for a delivery that was tried and waits for its retry: the endpoint's list, the events list,
    // the event page.
    const hook = hooks['HTTP 503'];
    await s.page.goto(`${svc.url}/dashboard/settings/developers/webhooks/${hook.id}`);
    await settled(s.page);
    const onEndpoint = s.page.locator('tbody tr', { hasText: 'order.created' }).locator('[data-status]');
    await expect.poll(() => onEndpoint.textContent()).toBe('retrying');
    expect(await s.page.getByText('HTTP 503').count()).toBeGreaterThan(0);
    await openTab(s.page, 'Events');
    await settled(s.page);
    const eventRow = s.page.locator('tbody tr', { hasText: eventId });
    expect(await eventRow.locator('[data-status]').allTextContents()).toEqual([
      'retrying',
      'retrying',
      'retrying',
    ]);
    await s.page.goto(`${svc.url}/dashboard/settings/developers/events/${eventId}`);
    await settled(s.page);
    const onEvent = s.page.locator('tbody tr', { hasText: new URL(hook.url).host }).locator('[data-status]');
    expect(await onEvent.textContent()).toBe('retrying');
    expect(await s.page.locator('[data-status="pending"]').count()).toBe(0);
    expect(s.errors).toEqual([]);
    await s.close();
  });
});

describe('no dead ends', () => {
  it('with sign-up closed, the dashboard offers no sign-up link', async () => {
    const s = await browser.open();
    await s.page.goto(`${closed.url}/dashboard/signin`);
    await s.page.getByRole('heading', { name: 'Sign in to your account' }).waitFor();
    expect(await s.page.getByRole('link', { name: /create an account/i }).count()).toBe(0);
    expect(await s.page.getByText('Accounts on this service are made by its operator').count()).toBe(1);
    // The sign-up URL itself is the sign-in page, not "No such path".
    await s.page.goto(`${closed.url}/dashboard/signup`);
    await s.page.getByRole('heading', { name: 'Sign in to your account' }).waitFor();
    expect(await s.page.getByLabel('Business name').count()).toBe(0);
    expect(s.errors).toEqual([]);
    await s.close();
  });

  it('at 375 px every tab is reachable, a hint shows more, the banner keeps to a line, nothing scrolls sideways', async () => {
    const s = await browser.open({ viewport: PHONE });
    await signIn(s);
    const sideways = () => s.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    const banner = await s.page.locator('.test-banner').boundingBox();
    expect(banner!.height).toBeLessThanOrEqual(28);
    const tabs = s.page.getByRole('navigation', { name: 'Developers' });
    const overflows = await tabs.evaluate((el) => el.scrollWidth > el.clientWidth);
    expect(overflows).toBe(true);
    await s.page.getByTestId('tabs-more').waitFor();
    for (const name of ['OAuth Apps', 'Credentials', 'Webhooks', 'Events', 'Logs', 'Requests'] as const) {
      await openTab(s.page, name);
      await settled(s.page);
      // The current tab is in view, whole.
      const current = await tabs.locator('[aria-current="page"]').boundingBox();
      expect(current!.x).toBeGreaterThanOrEqual(0);
      expect(current!.x + current!.width).toBeLessThanOrEqual(PHONE.width);
      expect(await sideways(), name).toBeLessThanOrEqual(0);
    }
    // On the last tab the strip is scrolled to its end: nothing more to the right, no hint.
    await expect.poll(() => s.page.getByTestId('tabs-more').count()).toBe(0);
    await s.page.goto(`${svc.url}/guides/webhooks`);
    expect(await sideways()).toBeLessThanOrEqual(0);
    expect(s.errors).toEqual([]);
    await s.close();
  });
});
