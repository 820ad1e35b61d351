// A developer operating an app webhook that many stores feed (API.md section 12.2): the Webhooks tab shows the
// addresses deliveries come from with a copy button; the app webhook's deliveries name each one's store and
// filter by it; the Attempts view lists every attempt and filters by outcome; the event's Resend menu offers
// only the endpoints that may take it. Every view passes axe and logs no console error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { INTERNAL_TOKEN, createWebhook, emit } from '../webhooks/helpers.ts';
import { createAppWebhook, install, newApp } from '../webhooks/app-helpers.ts';
import { eventually } from '../support/eventually.ts';
import { launchBrowser, seriousViolations, type Launched, type Session } from './support/browser.ts';
import { openTab, settled, signInWith } from './support/dashboard.ts';

let svc: TestService;
let browser: Launched;
let rx: Receiver;
let dev: TestMerchant;
let shop: TestMerchant;
let s: Session;
let appHookId: string;
let eventId: string;

beforeAll(async () => {
  [svc, browser, rx] = await Promise.all([
    startTestService({
      listen: true,
      workers: true,
      env: {
        SVC_INTERNAL_TOKEN: INTERNAL_TOKEN,
        SVC_WEBHOOK_RETRY_SCHEDULE: '3600',
        SVC_EGRESS_ADDRESSES: '203.0.113.7,198.51.100.0/24',
        SVC_EGRESS_ADDRESSES_UPDATED_AT: '2026-12-01T09:30:00Z',
      },
    }),
    launchBrowser(),
    startReceiver((r) => ({ status: r.path === '/broken' ? 500 : 200 })),
  ]);
  dev = await signupMerchant(svc.app, 'Many Stores Dev');
  shop = await signupMerchant(svc.app, 'Corner Shop');
  const app = await newApp(svc, dev);
  appHookId = (await createAppWebhook(svc, dev, app, `${rx.url}/app`, ['order.created'])).id;
  await createWebhook(svc, dev, `${rx.url}/broken`, ['order.created']);
  await createWebhook(svc, dev, `${rx.url}/paid-only`, ['order.paid']);
  await install(svc, app, shop, 'public:read');
  await emit(svc, shop, 'order.created', { id: 'ord_corner' });
  eventId = (await emit(svc, dev, 'order.created', { id: 'ord_own' })).id;
  await eventually(async () => rx.received.length >= 2, { what: 'the two deliveries', timeoutMs: 15_000 });
  s = await browser.open();
  await signInWith(s.page, svc.url, dev);
});
afterAll(async () => {
  await browser?.close();
  await rx?.close();
  await svc?.close();
});

describe('operating an app webhook', () => {
  it('shows the source addresses on the Webhooks tab, each with a copy button', async () => {
    const { page } = s;
    await openTab(page, 'Webhooks');
    await settled(page);
    const list = page.getByRole('list', { name: 'Source addresses' });
    await expect.poll(() => list.getByRole('listitem').count()).toBe(2);
    await page.getByRole('button', { name: 'Copy 198.51.100.0/24' }).waitFor();
    await page.getByRole('button', { name: 'Copy every address' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it("names each delivery's store on the app webhook, and filters by it", async () => {
    const { page } = s;
    await page.goto(`${svc.url}/dashboard/settings/developers/webhooks/${appHookId}`);
    await page.getByRole('columnheader', { name: 'Store' }).waitFor();
    await settled(page);
    await page.getByRole('cell', { name: shop.storeId }).waitFor();
    await page.getByRole('textbox', { name: 'Store' }).fill(dev.storeId);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No matching deliveries.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('lists every attempt in the Attempts view, and filters them by outcome', async () => {
    const { page } = s;
    await openTab(page, 'Webhooks');
    await page.getByRole('link', { name: 'All attempts' }).click();
    await page.getByRole('heading', { name: 'Attempts' }).waitFor();
    await settled(page);
    const rows = page.getByRole('table').getByRole('row');
    await expect.poll(() => rows.count()).toBe(3); // header + the app's and the broken endpoint's
    await page.getByLabel('Outcome').selectOption('failed');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByText('HTTP 500').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('offers in the Resend menu only the endpoints that may take the event', async () => {
    const { page } = s;
    await page.goto(`${svc.url}/dashboard/settings/developers/events/${eventId}`);
    await page.getByRole('heading', { name: 'Event order.created' }).waitFor();
    await settled(page);
    // the broken endpoint subscribes to order.created; the paid-only one does not, and the app's webhook
    // never heard this (the developer's own) event. Polled: the menu's endpoints come from a request of their
    // own, which a loaded host may answer after the page looks settled.
    const options = () => page.getByLabel('Endpoint').locator('option').allTextContents();
    await expect.poll(options).toEqual(['Choose an endpoint', `${rx.url}/broken`]);
    expect(await seriousViolations(page)).toEqual([]);
    expect(s.errors).toEqual([]);
  });
});
