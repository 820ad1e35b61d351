// The dashboard's part of the integrator journey: Settings -> Developers shows the merchant id and the
// store id with copy buttons and links the guides; an app page shows the install link (client_id and the
// chosen redirect URI, with the note about state and PKCE), the discovery URL and the install count.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { createApp, exchange, getCode } from '../oauth/helpers.ts';
import { launchBrowser, screenshot, seriousViolations, type Launched } from './support/browser.ts';
import { settled, signInWith } from './support/dashboard.ts';

let svc: TestService;
let browser: Launched;
let dev: TestMerchant;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService({ listen: true }), launchBrowser()]);
  dev = await signupMerchant(svc.app, 'Sync Labs');
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

it('shows ids to copy, the install link, the discovery URL and the install count', async () => {
  const app = await createApp(svc.app, dev, {
    name: 'Inventory Sync',
    redirect_uris: ['https://sync.example.com/a', 'https://sync.example.com/b'],
  });
  for (const name of ['Shop One', 'Shop Two']) {
    const shop = await signupMerchant(svc.app, name);
    const { code, verifier } = await getCode(svc.app, app, shop);
    await exchange(svc.app, app, code, verifier);
  }

  const s = await browser.open();
  const { page } = s;
  await signInWith(page, svc.url, dev);

  const ids = page.getByRole('definition').filter({ hasText: dev.storeId });
  await ids.waitFor();
  expect(await page.textContent('.account-ids')).toContain(dev.merchantId);
  await page.getByRole('button', { name: 'Copy store ID' }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(dev.storeId);
  await page.getByRole('button', { name: 'Copy merchant ID' }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(dev.merchantId);

  await page.goto(`${svc.url}/dashboard/settings/developers/apps/${app.id}`);
  await settled(page);
  await expect.poll(() => page.getByTestId('install-count').textContent()).toBe('2 stores');
  const link = new URL((await page.getByTestId('install-link').textContent())!);
  expect(link.origin + link.pathname).toBe(`${svc.url}/api/public/v1/oauth/authorize`);
  expect(Object.fromEntries(link.searchParams)).toEqual({
    response_type: 'code',
    client_id: app.client_id,
    redirect_uri: 'https://sync.example.com/a',
    scope: 'public:*',
    code_challenge_method: 'S256',
  });
  await page.getByLabel('Redirect URI').selectOption('https://sync.example.com/b');
  expect(await page.getByTestId('install-link').textContent()).toContain(
    encodeURIComponent('https://sync.example.com/b'),
  );
  expect(await page.textContent('body')).toContain('adds state and the PKCE code_challenge');
  expect(await page.textContent('body')).toContain(`${svc.url}/.well-known/oauth-authorization-server`);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'app-install-1280');

  // The guide the page links to is served.
  const guide = await page
    .getByRole('link', { name: 'Building an app that installs on a store' })
    .getAttribute('href');
  expect((await fetch(new URL(guide!, svc.url))).status).toBe(200);
  expect(s.errors, s.errors.join('\n')).toEqual([]);
});
