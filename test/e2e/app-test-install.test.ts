// An app developer's loop in the dashboard (API.md section 11.1): on the app's page, add an endpoint for the
// app's installs, press "Install on my test store", approve, and see the app's first delivery (app.installed)
// in that webhook's deliveries, with the store among the installations. Then the merchant's Connected apps
// names what the app receives, in words. The view passes axe and logs no console error.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { launchBrowser, seriousViolations, type Launched } from './support/browser.ts';
import { settled, signInWith } from './support/dashboard.ts';

let svc: TestService;
let browser: Launched;
let rx: Receiver;
let dev: TestMerchant;
let appId: string;

beforeAll(async () => {
  [svc, browser, rx] = await Promise.all([
    startTestService({ listen: true, workers: true }),
    launchBrowser(),
    startReceiver(),
  ]);
  dev = await signupMerchant(svc.app, 'Sync Labs');
  const created = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/developer/apps',
    headers: dev.auth,
    payload: {
      name: 'Inventory Sync',
      redirect_uris: ['https://sync.example.com/callback'],
      allowed_scopes: ['public:read'],
    },
  });
  expect(created.statusCode).toBe(201);
  appId = created.json().data.id as string;
});
afterAll(async () => {
  await browser?.close();
  await rx?.close();
  await svc?.close();
});

it("installs the app on the developer's own test store and shows its first delivery", async () => {
  const s = await browser.open();
  const { page } = s;
  await signInWith(page, svc.url, dev);
  await page.goto(`${svc.url}/dashboard/settings/developers/apps/${appId}`);

  // An endpoint for the app's installs, from its page, with the Webhooks tab's form.
  const webhooks = page.getByRole('region', { name: 'Webhooks' });
  await webhooks.getByRole('link', { name: 'Add endpoint' }).click();
  await page.getByLabel('Endpoint URL').fill(`${rx.url}/app`);
  await page.getByRole('checkbox', { name: /app\.installed/ }).check();
  await page.getByRole('checkbox', { name: /order\.created/ }).check();
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await page
    .getByRole('dialog', { name: 'Endpoint added' })
    .getByRole('button', { name: 'I have saved it' })
    .click();
  await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
  await page.goto(`${svc.url}/dashboard/settings/developers/apps/${appId}`);

  // Install on my test store: the consent, drawn by the dashboard, for the signed-in merchant's store.
  await page.getByRole('button', { name: 'Install on my test store' }).click();
  const consent = page.getByRole('dialog', { name: 'Install Inventory Sync on your store?' });
  expect(await consent.textContent()).toContain('Read store data');
  await consent.getByRole('button', { name: 'Approve' }).click();
  const installations = page.getByRole('table', { name: 'Installations' });
  await installations.getByText('Sync Labs').waitFor();
  expect(await installations.textContent()).toContain(dev.storeId);

  // The app's first delivery, in its webhook's deliveries.
  await settled(page);
  const violations = await seriousViolations(page);
  await page
    .getByRole('table', { name: "The app's webhooks" })
    .getByRole('link', { name: `${rx.url}/app` })
    .click();
  await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
  const deliveries = page.getByRole('region', { name: 'Deliveries' });
  const row = deliveries.getByRole('row', { name: /app\.installed/ });
  await expect.poll(async () => (await row.count()) > 0 && (await row.textContent())).toMatch(/succeeded/);
  const [received] = await rx.waitFor(1, 15_000);
  expect(JSON.parse(received!.body)).toMatchObject({
    type: 'app.installed',
    app_id: appId,
    merchant_id: dev.merchantId,
    store_id: dev.storeId,
  });

  // The merchant's side of the same installation: what the app receives, in words.
  await page.goto(`${svc.url}/dashboard/settings/developers/connected-apps`);
  const connection = page.getByRole('list', { name: 'Events Inventory Sync receives' });
  // (named once the event catalog has loaded, which may be after the list)
  await connection.getByText('App installed').waitFor();
  await connection.getByText('Order created').waitFor();
  expect(violations).toEqual([]);
  expect(s.errors, s.errors.join('\n')).toEqual([]);
});
