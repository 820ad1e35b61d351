// What a person sees when the service says no: the message, the field details of a validation error, and
// the request id to quote. The browser logs each refused request as a console error; those expected here
// are allowed by URL and status, and any other console error still fails the test.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { launchBrowser, type Launched, type Session } from './support/browser.ts';

let svc: TestService;
let browser: Launched;
let merchant: TestMerchant;
let s: Session;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService({ listen: true }), launchBrowser()]);
  merchant = await signupMerchant(svc.app, 'Careful Co');
  s = await browser.open();
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

function unexpected(errors: string[], allowed: RegExp[]): string[] {
  return errors.filter((e) => !allowed.some((a) => a.test(e)));
}

it('a wrong password shows the service message and its request id', async () => {
  const { page } = s;
  await page.goto(`${svc.url}/dashboard/signin`);
  await page.getByLabel('Email').fill(merchant.email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toMatch(/Request ID req_\S+/);
  expect(await alert.textContent()).toContain('invalid_credentials');
  expect(unexpected(s.errors, [/status of 401 .*\/auth\/login/])).toEqual([]);

  await page.getByLabel('Password').fill(merchant.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Developers' }).waitFor();
});

it('a validation error names the field', async () => {
  const { page } = s;
  s.errors.length = 0;
  await page.goto(`${svc.url}/dashboard/settings/developers/apps/new`);
  await page.getByLabel('Name').fill('Plain HTTP app');
  await page.getByRole('textbox', { name: 'Redirect URI 1' }).fill('http://example.com/callback');
  await page.getByRole('button', { name: 'Create app' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toContain('redirect_uris');
  expect(await alert.textContent()).toMatch(/Request ID req_\S+/);
  expect(unexpected(s.errors, [/status of 400 .*\/developer\/apps/])).toEqual([]);
});

it('an unknown id shows not found, with no pointless retry, not a blank page', async () => {
  const { page } = s;
  s.errors.length = 0;
  await page.goto(`${svc.url}/dashboard/settings/developers/webhooks/wh_doesnotexist`);
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toMatch(/Request ID req_\S+/);
  expect(await alert.textContent()).toContain('not_found');
  expect(await alert.getByRole('button', { name: 'Try again' }).count()).toBe(0);
  expect(unexpected(s.errors, [/status of 404 .*\/webhooks\/wh_doesnotexist/])).toEqual([]);
});
