// The management actions beyond the first walk: edit, rotate and delete an app; disconnect a connected
// app; rotate a key pair with a grace period; disable, enable and rotate a webhook and filter its
// deliveries; search, filter by date and page through Logs. Any console error fails the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { launchBrowser, type Launched, type Session } from './support/browser.ts';
import { openTab, settled, signInWith } from './support/dashboard.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

let svc: TestService;
let browser: Launched;
let receiver: Receiver;
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

beforeAll(async () => {
  [svc, browser, receiver] = await Promise.all([
    startTestService({ listen: true, workers: true }),
    launchBrowser(),
    startReceiver(),
  ]);
  merchant = await signupMerchant(svc.app, 'Busy Bees');
  s = await browser.open();
  await signInWith(s.page, svc.url, merchant);
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await svc?.close();
});

describe('managing integrations', () => {
  it('edits an app, rotates its secret with a grace period, and deletes it behind its typed name', async () => {
    const app = await call('POST', '/developer/apps', {
      name: 'Label Printer',
      redirect_uris: ['https://labels.example.com/cb'],
      allowed_scopes: ['public:read'],
    });
    const { page } = s;
    await page.goto(`${svc.url}/dashboard/settings/developers/apps/${app.id}`);
    await page.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit app' });
    await edit.getByLabel('Name').fill('Label Printer Pro');
    await edit.getByRole('checkbox', { name: /public:write/ }).check();
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Label Printer Pro' }).waitFor();
    expect(await page.getByText('public:read, public:write').isVisible()).toBe(true);

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate client secret' });
    await rotate.getByRole('radio', { name: 'In 1 hour' }).check();
    const request = page.waitForRequest((r) => r.url().endsWith('/rotate-secret'));
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    expect((await request).postDataJSON()).toEqual({ previous_secret_expires_in: 3600 });
    const shown = page.getByRole('dialog', { name: 'New client secret' });
    const secret = (await shown.locator('code').first().textContent())!;
    expect(secret).toMatch(/^svc_test_cs_/);
    expect(secret).not.toBe(app.client_secret);
    await shown.getByRole('button', { name: 'I have saved it' }).click();
    expect(await page.getByText(`••••${secret.slice(-4)}`).isVisible()).toBe(true);

    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete app' });
    const button = confirm.getByRole('button', { name: 'Delete app' });
    expect(await button.isDisabled()).toBe(true);
    await confirm.getByLabel(/Type Label Printer Pro to confirm/).fill('Label Printer');
    expect(await button.isDisabled()).toBe(true);
    await confirm.getByLabel(/Type Label Printer Pro to confirm/).fill('Label Printer Pro');
    await button.click();
    await page.getByText('No OAuth apps yet.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/settings/developers/apps');
    expect(s.errors).toEqual([]);
  });

  it('disconnects a connected app', async () => {
    const app = await call('POST', '/developer/apps', {
      name: 'Review Widget',
      redirect_uris: ['https://reviews.example.com/cb'],
      allowed_scopes: ['public:read'],
    });
    const authorize = await svc.app.inject({
      url: `/api/public/v1/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: app.client_id,
        redirect_uri: 'https://reviews.example.com/cb',
        scope: 'public:read',
        state: 's1',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      })}`,
      headers: { ...merchant.auth, accept: 'application/json' },
    });
    expect(authorize.statusCode).toBe(200);
    const consent = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/authorize/consent',
      headers: merchant.auth,
      payload: { consent_id: authorize.json().data.consent_id, approve: true },
    });
    expect(consent.statusCode).toBe(200);

    const { page } = s;
    await openTab(page, 'OAuth Apps');
    await page.getByRole('link', { name: 'Connected apps' }).click();
    const row = page.getByRole('row', { name: /Review Widget/ });
    await row.getByRole('button', { name: 'Disconnect Review Widget' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disconnect' }).click();
    await page.getByText('No connected apps.').waitFor();
    expect((await call('GET', '/developer/connections')).items).toEqual([]);
    expect(s.errors).toEqual([]);
  });

  it('rotates a key pair and keeps the old one working for 24 hours', async () => {
    await call('POST', '/api-keys', { name: 'Nightly export' });
    const { page } = s;
    await openTab(page, 'Credentials');
    await settled(page);
    await page.getByRole('button', { name: 'Rotate Nightly export' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate key pair' });
    await dialog.getByRole('radio', { name: 'In 24 hours' }).check();
    await dialog.getByRole('button', { name: 'Rotate key pair' }).click();
    const shown = page.getByRole('dialog', { name: 'Key pair rotated' });
    expect(await shown.locator('code').first().textContent()).toMatch(/^svc_test_sk_/);
    await shown.getByRole('button', { name: 'I have saved it' }).click();
    const rows = page.getByRole('row', { name: /Nightly export/ });
    await expect.poll(() => rows.count()).toBe(2);
    const text = (await rows.allTextContents()).join(' ');
    expect(text).toContain('expiring');
    expect(text).toContain('active');
    expect(s.errors).toEqual([]);
  });

  it('disables, enables and rotates a webhook, and filters its deliveries by status', async () => {
    const wh = await call('POST', '/webhooks', { url: receiver.url, events: ['order.created'] });
    await call('POST', `/webhooks/${wh.id}/test`);
    const { page } = s;
    await page.goto(`${svc.url}/dashboard/settings/developers/webhooks/${wh.id}`);
    await settled(page);
    await page.getByRole('button', { name: 'Disable' }).click();
    await page
      .getByRole('dialog', { name: 'Disable endpoint' })
      .getByRole('button', { name: 'Disable' })
      .click();
    await page.getByText('disabled', { exact: true }).first().waitFor();
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByRole('button', { name: 'Disable' }).waitFor();

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate signing secret' });
    expect(await rotate.getByRole('radio', { name: 'In 24 hours' }).isChecked()).toBe(true);
    await rotate.getByRole('radio', { name: 'In 7 days' }).check();
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    const shown = page.getByRole('dialog', { name: 'New signing secret' });
    expect(await shown.locator('code').first().textContent()).toMatch(/^whsec_/);
    await shown.getByRole('button', { name: 'I have saved it' }).click();

    const deliveries = page.getByRole('region', { name: 'Deliveries' });
    await deliveries.getByRole('link', { name: 'order.created' }).waitFor();
    await deliveries.getByLabel('Status').selectOption('failed');
    await deliveries.getByText('No failed deliveries.').waitFor();
    await deliveries.getByLabel('Status').selectOption('succeeded');
    await deliveries.getByRole('link', { name: 'order.created' }).waitFor();

    // Pages of 20: 21 deliveries make two.
    for (let i = 0; i < 20; i++) await call('POST', `/webhooks/${wh.id}/test`);
    await deliveries.getByRole('button', { name: 'Refresh' }).click();
    const rows = deliveries.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(20);
    expect(await deliveries.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);
    await deliveries.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await deliveries.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await deliveries.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(() => rows.count()).toBe(20);

    await openTab(page, 'Logs');
    await settled(page);
    const logs = (await page.getByRole('table').textContent())!;
    for (const action of ['webhook.disabled', 'webhook.enabled', 'webhook.secret_rotated'])
      expect(logs).toContain(action);
    expect(s.errors).toEqual([]);
  });

  it('searches Logs by entity id and action, by date, and pages over the cursor', async () => {
    // More entries than one page (50) of Logs.
    const keys = [];
    for (let i = 0; i < 52; i++) keys.push(await call('POST', '/api-keys', { name: `Bulk ${i}` }));
    // Sealed first: a row shows its sequence once the sealer has chained it, so the newest page read before
    // and after paging would differ in that column alone.
    await expect
      .poll(async () => {
        const newest = await svc.app.inject({
          url: '/api/v1/merchant/developer/logs?limit=1',
          headers: merchant.auth,
        });
        return newest.json().data.items[0].sequence;
      })
      .not.toBeNull();
    const { page } = s;
    await page.goto(`${svc.url}/dashboard/settings/developers/logs`);
    await settled(page);
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(50);
    const first = await rows.first().textContent();
    // The next page replaces this one (the list never grows past a page), and Newest comes back.
    await page.getByRole('button', { name: 'Older' }).click();
    await expect.poll(() => rows.first().textContent()).not.toBe(first);
    expect(await rows.count()).toBeGreaterThan(0);
    expect(await rows.count()).toBeLessThanOrEqual(50);
    expect(new URL(page.url()).searchParams.get('starting_after')).toMatch(/^log_/);
    const total = await svc.app.inject({
      url: '/api/v1/merchant/developer/logs?limit=1',
      headers: merchant.auth,
    });
    await expect.poll(() => page.getByText(`${total.json().data.count} entries`).count()).toBe(1);
    await page.getByRole('button', { name: 'Newest' }).click();
    await expect.poll(() => rows.first().textContent()).toBe(first);
    await expect.poll(() => rows.count()).toBe(50);

    await page.getByLabel('Entity ID').fill(keys[7].id);
    await page.getByRole('button', { name: 'Apply' }).click();
    await settled(page);
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('api_key.created');

    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByLabel('Action').selectOption('webhook.secret_rotated');
    await page.getByRole('button', { name: 'Apply' }).click();
    await settled(page);
    await expect.poll(() => rows.count()).toBe(1);

    // A date range of tomorrow has nothing yet; today's has everything.
    const tomorrow = new Date(Date.now() + 86_400_000);
    const day = (d: Date) =>
      `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    await page.getByRole('button', { name: 'Clear' }).click();
    await settled(page);
    await page.getByLabel('From', { exact: true }).fill(day(tomorrow));
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No log entries match.').waitFor();
    await page.getByLabel('From', { exact: true }).fill(day(new Date()));
    await page.getByLabel('To', { exact: true }).fill(day(new Date()));
    await page.getByRole('button', { name: 'Apply' }).click();
    await settled(page);
    await expect.poll(() => rows.count()).toBe(50);
    expect(s.errors).toEqual([]);
  });
});
