// examples/oauth-app.ts (oauth4webapi), run as documented in docs/guides/oauth-apps.md against a started
// service, driven through Chromium: sign-in, consent, code exchange; then the app finds its store with
// only what the token response and GET /stores returned, creates a cart there, refreshes and disconnects.
// Its webhook endpoint (verified with `standardwebhooks`) hears the installed store's order.created, drops
// its tokens on app.uninstalled when the merchant disconnects it in the dashboard, and erases the store's
// data on store.redact.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { freePort } from '../support/processes.ts';
import { eventually } from '../support/eventually.ts';
import { launchBrowser, type Launched } from './support/browser.ts';

let svc: TestService;
let browser: Launched;
let child: ChildProcess | undefined;
let shop: TestMerchant;
let base: string;
let out = '';

beforeAll(async () => {
  [svc, browser] = await Promise.all([
    // store.redact two seconds after an uninstall, rather than two days
    startTestService({ listen: true, workers: true, env: { SVC_STORE_REDACT_AFTER: '2' } }),
    launchBrowser(),
  ]);
  const developer = await signupMerchant(svc.app, 'Sync Labs');
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const created = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/developer/apps',
    headers: developer.auth,
    payload: {
      name: 'Inventory Sync',
      redirect_uris: [`${base}/callback`],
      allowed_scopes: ['public:read', 'public:write'],
    },
  });
  expect(created.statusCode).toBe(201);
  const app = created.json().data as { id: string; client_id: string; client_secret: string };
  // The app's webhook: the events of every store that installs it (API.md section 11.1).
  const hook = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/webhooks',
    headers: developer.auth,
    payload: {
      url: `${base}/webhooks`,
      events: ['order.created', 'app.uninstalled', 'store.redact'],
      app_id: app.id,
    },
  });
  expect(hook.statusCode).toBe(201);
  const example = spawn(process.execPath, ['examples/oauth-app.ts'], {
    env: {
      PATH: process.env.PATH,
      SVC_URL: svc.url,
      CLIENT_ID: app.client_id,
      CLIENT_SECRET: app.client_secret,
      WEBHOOK_SECRET: hook.json().data.secret,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child = example;
  example.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await eventually(
    async () => {
      if (example.exitCode !== null) throw new Error(`the example exited: ${out}`);
      return out.includes('listening');
    },
    { timeoutMs: 20_000, what: () => `the example to start: ${out}` },
  );
  shop = await signupMerchant(svc.app, 'Corner Shop');
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await browser?.close();
  await svc?.close();
});

const result = async (page: Page) =>
  JSON.parse((await page.textContent('#result')) ?? 'null') as Record<string, unknown>;

it('installs through sign-in and consent, finds its store, creates a cart, refreshes and disconnects', async () => {
  const s = await browser.open();
  const { page } = s;
  await page.goto(base);
  await page.getByRole('link', { name: 'Install on your store' }).click();
  await page.getByLabel('Email').fill(shop.email);
  await page.getByLabel('Password').fill(shop.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('heading', { name: 'Installed' }).waitFor();

  const installed = await result(page);
  expect(installed).toMatchObject({
    merchant_id: shop.merchantId,
    store_id: shop.storeId,
    mode: 'test',
    token_type: 'bearer',
    stores: [{ id: shop.storeId, name: 'Corner Shop', merchant_id: shop.merchantId, mode: 'test' }],
    cart_status: 201,
  });
  const cart = await svc.ctx.db
    .selectFrom('carts')
    .select(['store_id', 'merchant_id'])
    .where('id', '=', String(installed.cart_id))
    .executeTakeFirst();
  expect(cart).toEqual({ store_id: shop.storeId, merchant_id: shop.merchantId });

  await page.goto(`${base}/refresh`);
  expect(await result(page)).toEqual({ token_type: 'bearer', stores_status: 200 });
  await page.goto(`${base}/disconnect`);
  expect(await result(page)).toEqual({ disconnected: true });
  // Revoking the refresh token took its access tokens along: the installation holds no live token.
  const live = await svc.ctx.db
    .selectFrom('oauth_tokens')
    .select('kind')
    .where('merchant_id', '=', shop.merchantId)
    .where('expires_at', '>', new Date())
    .where('rotated_at', 'is', null)
    .execute();
  expect(live).toEqual([]);
  expect(s.errors, s.errors.join('\n')).toEqual([]);
});

interface Status {
  installed_merchants: string[];
  orders: Record<string, string[]>;
}

/** The example's /status, read until `done` holds. */
async function statusWhen(page: Page, done: (s: Status) => boolean, what: string): Promise<Status> {
  let last: Status | undefined;
  await expect
    .poll(
      async () => {
        await page.goto(`${base}/status`);
        last = (await result(page)) as unknown as Status;
        return done(last);
      },
      { message: `the example app's status: ${what}` },
    )
    .toBe(true);
  return last!;
}

it("hears the installed store's order, drops its tokens when disconnected, erases the store on store.redact", async () => {
  const s = await browser.open();
  const { page } = s;
  await page.goto(base);
  await page.getByRole('link', { name: 'Install on your store' }).click();
  await page.getByLabel('Email').fill(shop.email);
  await page.getByLabel('Password').fill(shop.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('heading', { name: 'Installed' }).waitFor();

  const order = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/events/trigger',
    headers: shop.auth,
    payload: { type: 'order.created', data: { id: 'ord_from_the_shop' } },
  });
  expect(order.statusCode).toBe(201);
  await statusWhen(
    page,
    (st) =>
      st.installed_merchants.includes(shop.merchantId) &&
      (st.orders[shop.storeId] ?? []).includes('ord_from_the_shop'),
    'the order, under the installed store',
  );

  // The merchant disconnects the app in the dashboard (the consent's sign-in made the session), which
  // lists what the app receives, in words.
  await page.goto(`${svc.url}/dashboard/settings/developers/connected-apps`);
  // (the page names the events once the catalog has loaded, which may be after the row)
  const row = page.getByRole('row', { name: /Inventory Sync/ });
  await row.getByText('Order created').waitFor();
  await row.getByRole('button', { name: 'Disconnect Inventory Sync' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Disconnect' }).click();
  await page.getByText('No connected apps.').waitFor();

  // app.uninstalled: the tokens are dropped; then store.redact: the store's data goes.
  await statusWhen(page, (st) => !st.installed_merchants.includes(shop.merchantId), 'the tokens dropped');
  await statusWhen(page, (st) => st.orders[shop.storeId] === undefined, "the store's data erased");
  expect(s.errors, s.errors.join('\n')).toEqual([]);
});
