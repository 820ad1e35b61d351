// The Requests tab in a real browser: a failing public call made with a key is found by pasting its request
// id, with its status, error code, error body and credential; and the request id of an error box links there.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { createKey, type TestKey } from '../api-keys/keys.ts';
import type { Requests } from '../../src/modules/requests/index.ts';
import { launchBrowser, seriousViolations, type Launched, type Session } from './support/browser.ts';
import { openTab, settled, signInWith } from './support/dashboard.ts';

let svc: TestService;
let browser: Launched;
let merchant: TestMerchant;
let key: TestKey;
let s: Session;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService({ listen: true }), launchBrowser()]);
  merchant = await signupMerchant(svc.app, 'Failing Calls Ltd');
  key = await createKey(svc.app, merchant);
  s = await browser.open();
  const { page } = s;
  await signInWith(page, svc.url, merchant);
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

const unexpected = (errors: string[], allowed: RegExp[]) =>
  errors.filter((e) => !allowed.some((a) => a.test(e)));

it('finds a failing call made with a key by pasting its request id', async () => {
  const { page } = s;
  // The integrator's backend makes a call that fails, and reads the request id from the error.
  const res = await fetch(`${svc.url}/api/public/v1/stores/store_doesnotexist/cart`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.secret_key}` },
  });
  expect(res.status).toBe(404);
  const requestId = ((await res.json()) as { error: { request_id: string } }).error.request_id;
  await (svc.modules.find((m) => m.name === 'requests') as Requests).batch.flush();

  await openTab(page, 'Requests');
  await settled(page);
  await page.getByRole('searchbox', { name: 'Request ID' }).fill(requestId);
  await page.getByRole('button', { name: 'Find' }).click();
  await page
    .getByRole('heading', { level: 2, name: 'POST /api/public/v1/stores/store_doesnotexist/cart' })
    .waitFor();
  expect(new URL(page.url()).pathname).toBe(`/dashboard/settings/developers/requests/${requestId}`);
  const main = page.locator('main');
  await expect.poll(() => main.textContent()).toContain('not_found');
  const text = (await main.textContent()) ?? '';
  expect(text).toContain(requestId);
  expect(text).toContain('404');
  expect(text).toContain(`Secret key ${key.id} ····${key.secret_key.slice(-4)}`);
  expect(text).not.toContain(key.secret_key);
  expect(await page.getByRole('heading', { name: 'Error body' }).count()).toBe(1);
  expect(await seriousViolations(page)).toEqual([]);

  // The list shows it too, and its filters narrow to it.
  await page.getByRole('link', { name: 'Requests', exact: true }).first().click();
  await settled(page);
  await page.getByLabel('Status').selectOption('4xx');
  await page.getByRole('button', { name: 'Apply' }).click();
  await settled(page);
  await page.getByRole('link', { name: 'POST /api/public/v1/stores/store_doesnotexist/cart' }).waitFor();
  expect(new URL(page.url()).search).toBe('?status=4xx');
  expect(unexpected(s.errors, [])).toEqual([]);
});

it("an error box's request id links to the Requests tab", async () => {
  const { page } = s;
  s.errors.length = 0;
  await page.goto(`${svc.url}/dashboard/settings/developers/webhooks/wh_doesnotexist`);
  const alert = page.getByRole('alert');
  await alert.waitFor();
  const link = alert.getByRole('link', { name: /^req_/ });
  const id = (await link.textContent())!;
  await link.click();
  await page.getByRole('heading', { level: 2, name: 'Request' }).waitFor();
  expect(new URL(page.url()).pathname).toBe(`/dashboard/settings/developers/requests/${id}`);
  // A dashboard call is not a public API call: the page says why it is not found.
  await expect.poll(() => page.locator('main').textContent()).toContain('public API');
  expect(
    unexpected(s.errors, [
      /status of 404 .*\/webhooks\/wh_doesnotexist/,
      /status of 404 .*\/developer\/requests\//,
    ]),
  ).toEqual([]);
});
