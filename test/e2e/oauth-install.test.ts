// An OAuth install in the browser: a local third-party app sends the merchant to authorize, the merchant
// signs in and approves on the consent page, the app exchanges the code and calls the public API; then the
// merchant finds the app under Connected apps, disconnects it, and the app's token stops working at once.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { launchBrowser, screenshot, seriousViolations, type Launched } from './support/browser.ts';
import { settled } from './support/dashboard.ts';
import { startOAuthClient, type OAuthClient } from './support/oauth-client.ts';

let svc: TestService;
let browser: Launched;
let client: OAuthClient;
let installer: TestMerchant;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService({ listen: true, workers: true }), launchBrowser()]);
  client = await startOAuthClient(svc.url);
  const developer = await signupMerchant(svc.app, 'Sync Labs');
  const created = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/developer/apps',
    headers: developer.auth,
    payload: { name: 'Inventory Sync', redirect_uris: [client.redirectUri], allowed_scopes: ['public:read'] },
  });
  expect(created.statusCode).toBe(201);
  client.setCredentials(created.json().data.client_id, created.json().data.client_secret);
  installer = await signupMerchant(svc.app, 'Corner Shop');
});
afterAll(async () => {
  await browser?.close();
  await client?.close();
  await svc?.close();
});

it('installs an app through sign-in and consent, and the app calls the public API', async () => {
  const s = await browser.open();
  const { page } = s;
  await page.goto(`${client.base}/start`);

  // Not signed in: the authorize endpoint asks for the merchant's sign-in first.
  await page.getByLabel('Password').waitFor();
  await screenshot(page, 'oauth-sign-in-1280');
  await page.getByLabel('Email').fill(installer.email);
  await page.getByLabel('Password').fill(installer.password);
  await page.getByRole('button', { name: 'Sign in' }).click();

  await page
    .getByRole('button', { name: 'Approve' })
    .waitFor({ timeout: 10_000 })
    .catch(async (err: unknown) => {
      // Say what the page showed instead of the consent screen.
      throw new Error(
        `no consent page at ${page.url()}: ${(await page.textContent('body'))?.trim().slice(0, 300)}`,
        {
          cause: err,
        },
      );
    });
  expect(await page.textContent('body')).toContain('Inventory Sync');
  const consentViolations = await seriousViolations(page);
  await screenshot(page, 'oauth-consent-1280');
  await page.getByRole('button', { name: 'Approve' }).click();

  await page.getByRole('heading', { name: 'Installed' }).waitFor();
  expect(await page.textContent('#result')).toMatch(/API answered 200: \d+ countries/);
  expect(consentViolations).toEqual([]);
  expect(s.errors).toEqual([]);

  // The same browser is signed in to the dashboard: the consent page's sign-in made the session.
  await page.goto(`${svc.url}/dashboard/settings/developers/connected-apps`);
  const row = page.getByRole('row', { name: /Inventory Sync/ });
  await row.waitFor();
  // scopes in words, and who publishes the app
  expect(await row.textContent()).toContain('Read store data');
  await row.getByRole('button', { name: 'Disconnect Inventory Sync' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Disconnect' }).click();
  await page.getByText('No connected apps.').waitFor();

  await page.goto(`${client.base}/call`);
  expect(await page.textContent('#result')).toMatch(/API answered 401/);

  // The installer's Logs show the consent, the token and the disconnection.
  await page.goto(`${svc.url}/dashboard/settings/developers/logs`);
  await settled(page);
  const logs = await page.getByRole('table').textContent();
  for (const action of ['oauth.consent_approved', 'oauth.token_issued', 'oauth.connection_revoked']) {
    expect(logs).toContain(action);
  }
  expect(s.errors).toEqual([]);
});
