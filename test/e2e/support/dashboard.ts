// Steps a person takes in the dashboard, shared by the browser tests.
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Page } from 'playwright-core';

export const PASSWORD = 'correct horse battery';

export function newEmail(): string {
  return `e2e-${randomBytes(5).toString('hex')}@example.com`;
}

export async function signUp(page: Page, base: string, merchantName = 'Acme Goods'): Promise<string> {
  const email = newEmail();
  await page.goto(`${base}/dashboard/signup`);
  await page.getByLabel('Business name').fill(merchantName);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { level: 1, name: 'Developers' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/dashboard/settings/developers/apps');
  return email;
}

/** Signs in on the dashboard's page and waits for Settings → Developers. */
export async function signInWith(
  page: Page,
  base: string,
  who: { email: string; password: string },
): Promise<void> {
  await page.goto(`${base}/dashboard/signin`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Developers' }).waitFor();
}

export async function openTab(
  page: Page,
  name: 'OAuth Apps' | 'Credentials' | 'Webhooks' | 'Events' | 'Logs' | 'Requests',
): Promise<void> {
  await page.getByRole('navigation', { name: 'Developers' }).getByRole('link', { name }).click();
  await page.locator('[aria-current="page"]', { hasText: name }).waitFor();
}

/** Waits until no view is loading (the spinners of AsyncView are gone). */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => !document.querySelector('.loading'));
}
