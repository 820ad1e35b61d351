// A merchant's engineer when a webhook fails: the list says since when and what happens next; editing the
// URL and recovering sends every failed event once to the healthy endpoint; the delivery view shows exactly
// what the receiver saw; the events view finds an event by its object's id and resends it; the logs keep
// their filters in the URL and export to CSV. Every new view passes axe, logs no console error and does not
// scroll sideways on a phone.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { INTERNAL_TOKEN } from '../webhooks/helpers.ts';
import { eventually } from '../support/eventually.ts';
import { sampleData } from '../../src/modules/events/index.ts';
import { PHONE, launchBrowser, seriousViolations, type Launched, type Session } from './support/browser.ts';
import { openTab, settled, signInWith } from './support/dashboard.ts';

let svc: TestService;
let browser: Launched;
let rx: Receiver;
let merchant: TestMerchant;
let s: Session;

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

// A loaded CI machine runs the browser and the workers side by side: wait 15 s for a delivery, not 10.
const SLOW = { timeoutMs: 15_000, intervalMs: 100 };

async function signIn(session: Session) {
  await signInWith(session.page, svc.url, merchant);
}

beforeAll(async () => {
  [svc, browser, rx] = await Promise.all([
    startTestService({
      listen: true,
      workers: true,
      env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN, SVC_WEBHOOK_RETRY_SCHEDULE: '0.2' },
    }),
    launchBrowser(),
    startReceiver((r) => ({ status: r.path === '/down' ? 500 : 200 })),
  ]);
  merchant = await signupMerchant(svc.app, 'Night Shift');
  s = await browser.open();
  await signIn(s);
});
afterAll(async () => {
  await browser?.close();
  await rx?.close();
  await svc?.close();
});

describe('a webhook on a bad day', () => {
  let webhook: { id: string };
  const events: string[] = [];

  it('shows since when an endpoint fails, on the list', async () => {
    webhook = await call('POST', '/webhooks', { url: `${rx.url}/down`, events: ['order.created'] });
    for (let i = 1; i <= 3; i++) {
      const res = await svc.app.inject({
        method: 'POST',
        url: '/internal/v1/events',
        headers: { authorization: `Bearer ${INTERNAL_TOKEN}` },
        payload: {
          merchant_id: merchant.merchantId,
          mode: 'test',
          type: 'order.created',
          data: { ...sampleData('order.created'), id: `order_${i}` },
        },
      });
      events.push(res.json<{ data: { id: string } }>().data.id);
    }
    await eventually(
      async () => (await call('GET', `/webhooks/${webhook.id}/deliveries?status=failed`)).count === 3,
      { ...SLOW, what: 'three failed deliveries' },
    );
    const { page } = s;
    await openTab(page, 'Webhooks');
    await settled(page);
    const health = page.getByRole('row', { name: new RegExp(`${rx.url}/down`) }).getByTestId('health');
    await expect
      .poll(() => health.textContent())
      .toMatch(/^Failing since .*, will be disabled in (4 d 23 h|5 d) · 0% of 3 delivered in 24 h$/);
    expect(s.errors).toEqual([]);
  });

  it('edits the URL to a healthy endpoint and recovers every failed event once', async () => {
    const { page } = s;
    await page.getByRole('link', { name: `${rx.url}/down` }).click();
    await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
    await page.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit endpoint' });
    await edit.getByLabel('Endpoint URL').fill(`${rx.url}/up`);
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.waitFor({ state: 'detached' });
    await page.getByText(`${rx.url}/up`).first().waitFor();

    await page.getByRole('button', { name: 'Recover failed' }).click();
    const recover = page.getByRole('dialog', { name: 'Recover failed deliveries' });
    await recover.getByRole('button', { name: 'Preview' }).click();
    await expect
      .poll(() => recover.getByTestId('recover-preview').textContent())
      .toBe('3 deliveries will be sent again.');
    await recover.getByRole('button', { name: 'Send 3 again' }).click();
    await page
      .getByRole('dialog', { name: 'Recovery started' })
      .getByRole('button', { name: 'Done' })
      .click();

    const up = () => rx.received.filter((r) => r.path === '/up');
    await eventually(async () => up().length >= 3, {
      ...SLOW,
      what: 'three deliveries to the healthy endpoint',
    });
    // Once all three are recorded succeeded, nothing of theirs is in flight and nothing more can be sent.
    await eventually(
      async () => (await call('GET', `/webhooks/${webhook.id}/deliveries?status=succeeded`)).count === 3,
      { ...SLOW, what: 'the three deliveries recorded as succeeded' },
    );
    expect(
      up()
        .map((r) => r.headers['webhook-id'])
        .sort(),
    ).toEqual([...events].sort());
    expect(s.errors).toEqual([]);
  });

  it('shows the exact body and headers the receiver saw', async () => {
    const { page } = s;
    const delivered = rx.received.find((r) => r.path === '/up' && r.headers['webhook-id'] === events[0])!;
    const page1 = await call('GET', `/webhooks/${webhook.id}/deliveries?status=succeeded`);
    const delivery = page1.items.find((d: { event_id: string }) => d.event_id === events[0]);
    await page.goto(
      `${svc.url}/dashboard/settings/developers/webhooks/${webhook.id}/deliveries/${delivery.id}`,
    );
    await page.getByRole('heading', { name: 'Request body' }).waitFor();
    await page.getByLabel('Exact bytes').check();
    expect(await page.getByTestId('payload').textContent()).toBe(delivered.body);
    // the last attempt is listed first; its request headers are what the receiver got
    await page.getByText('Request headers').first().click();
    const table = page.getByRole('table', { name: /^Request headers of attempt/ }).first();
    for (const name of [
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
      'content-type',
      'user-agent',
    ]) {
      expect(
        await table
          .getByRole('row', { name: new RegExp(`^${name}`) })
          .getByRole('cell')
          .textContent(),
      ).toBe(delivered.headers[name]);
    }
    expect(await seriousViolations(page)).toEqual([]);
    expect(s.errors).toEqual([]);
  });

  it('finds an event by its object id and resends it to a chosen endpoint', async () => {
    const { page } = s;
    await openTab(page, 'Events');
    await page.getByLabel('Event or object ID').fill('order_2');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => new URL(page.url()).search).toBe('?q=order_2');
    await settled(page);
    const rows = page.getByRole('table').getByRole('row');
    await expect.poll(() => rows.count()).toBe(2); // header + one event
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'order.created' }).click();
    await page.getByRole('heading', { name: 'Event order.created' }).waitFor();
    const before = rx.received.filter((r) => r.headers['webhook-id'] === events[1]).length;
    await page.getByLabel('Endpoint').selectOption({ label: `${rx.url}/up` });
    await page.getByRole('button', { name: 'Resend event' }).click();
    await page.getByText('is on its way').waitFor();
    await eventually(
      async () => rx.received.filter((r) => r.headers['webhook-id'] === events[1]).length > before,
      { ...SLOW, what: 'the resent event to arrive' },
    );
    expect(await seriousViolations(page)).toEqual([]);
    expect(s.errors).toEqual([]);
  });

  it('keeps log filters in the URL, refuses a backwards range, and exports what it shows as CSV', async () => {
    const { page } = s;
    await openTab(page, 'Logs');
    await page.getByLabel('Family').selectOption('webhook');
    await page.getByLabel('Action').selectOption('webhook.recovered');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('action')).toBe('webhook.recovered');
    await settled(page);
    const shown = await page.locator('table.table-logs tbody tr').count();
    expect(shown).toBe(1);

    // the URL alone reproduces the view in a fresh page
    const fresh = await s.context.newPage();
    await fresh.goto(page.url());
    await fresh.locator('table.table-logs tbody tr').first().waitFor();
    expect(await fresh.locator('table.table-logs tbody tr').allTextContents()).toEqual(
      await page.locator('table.table-logs tbody tr').allTextContents(),
    );
    await fresh.close();

    await page.getByLabel('From', { exact: true }).fill('2026-11-20');
    await page.getByLabel('To', { exact: true }).fill('2026-11-10');
    await page.getByRole('alert').filter({ hasText: 'before' }).waitFor();
    expect(await page.getByRole('button', { name: 'Apply' }).isDisabled()).toBe(true);
    await page.getByLabel('To', { exact: true }).fill('');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const rows = parse<Record<string, string>>(readFileSync(await download.path(), 'utf8'), {
      columns: true,
    });
    const api = await call('GET', '/developer/logs?action=webhook.recovered');
    expect(rows.map((r) => r.id)).toEqual(api.items.map((e: { id: string }) => e.id));
    expect(rows[0]!.metadata).toBe(api.items[0].metadata);
    expect(await seriousViolations(page)).toEqual([]);
    expect(s.errors).toEqual([]);
  });

  it('fits a phone: the new views stack instead of scrolling sideways', async () => {
    const phone = await browser.open({ viewport: PHONE });
    await signIn(phone);
    const base = `${svc.url}/dashboard/settings/developers`;
    const delivery = (await call('GET', `/webhooks/${webhook.id}/deliveries?limit=1`)).items[0];
    for (const path of [
      '/webhooks',
      `/webhooks/${webhook.id}`,
      `/webhooks/${webhook.id}/deliveries/${delivery.id}`,
      '/events',
      `/events/${events[0]}`,
      '/logs',
    ]) {
      await phone.page.goto(base + path);
      await settled(phone.page);
      await phone.page.locator('.tab-panel h2').first().waitFor();
      const overflow = await phone.page.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      );
      expect.soft(overflow, `${path} scrolls sideways`).toBeLessThanOrEqual(0);
      expect.soft(await seriousViolations(phone.page), path).toEqual([]);
    }
    expect(phone.errors).toEqual([]);
    await phone.close();
  });
});
