// Keyboard only: sign up, reach Credentials, generate a key pair, acknowledge its secret, revoke it. Focus
// stays inside each dialog, Escape closes a dialog and gives focus back to the button that opened it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.ts';
import { launchBrowser, type Launched } from './support/browser.ts';
import { newEmail, PASSWORD } from './support/dashboard.ts';

let svc: TestService;
let browser: Launched;
beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService({ listen: true }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

/** The accessible name of the focused element, as a screen reader would announce it (roughly). */
function focused(page: Page): Promise<{ name: string; inDialog: boolean; dialogOpen: boolean }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    const input = el as HTMLInputElement | null;
    const name =
      el?.getAttribute('aria-label') ??
      (input?.labels?.[0]?.textContent || el?.textContent || '').replace(/\s+/g, ' ').trim();
    return {
      name,
      inDialog: !!el?.closest('dialog[open]'),
      dialogOpen: !!document.querySelector('dialog[open]'),
    };
  });
}

async function tabTo(page: Page, name: string | RegExp, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const now = (await focused(page)).name;
    if (typeof name === 'string' ? now === name : name.test(now)) return;
  }
  throw new Error(`Tab never reached "${String(name)}"`);
}

it('generates and revokes a key pair with the keyboard alone', async () => {
  const { page, errors } = await browser.open();
  await page.goto(`${svc.url}/dashboard/signup`);
  await tabTo(page, /^Business name/);
  await page.keyboard.type('Keyboard Goods');
  await page.keyboard.press('Tab');
  await page.keyboard.type(newEmail());
  await page.keyboard.press('Tab');
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Developers' }).waitFor();

  await tabTo(page, 'Credentials');
  await page.keyboard.press('Enter');
  await page.getByText('No API keys yet.').waitFor();

  await tabTo(page, 'Generate key pair');
  await page.keyboard.press('Enter');
  await page.getByRole('dialog', { name: 'Generate key pair' }).waitFor();
  expect(await focused(page)).toMatchObject({ inDialog: true });
  await page.keyboard.type('Keyboard key');
  await page.keyboard.press('Enter');

  const secret = page.getByRole('dialog', { name: 'Key pair generated' });
  await secret.waitFor();
  // Focus is trapped: twenty Tabs and Shift+Tabs never leave the dialog.
  for (let i = 0; i < 10; i++) {
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatchObject({ inDialog: true });
  }
  for (let i = 0; i < 10; i++) {
    await page.keyboard.press('Shift+Tab');
    expect(await focused(page)).toMatchObject({ inDialog: true });
  }
  // A secret shown once must be acknowledged: Escape does not dismiss it.
  await page.keyboard.press('Escape');
  expect(await secret.isVisible()).toBe(true);
  await tabTo(page, 'I have saved it');
  await page.keyboard.press('Enter');
  await secret.waitFor({ state: 'detached' });

  const row = page.getByRole('row', { name: /Keyboard key/ });
  await row.getByText('active').waitFor();
  await tabTo(page, 'Revoke Keyboard key');
  await page.keyboard.press('Enter');
  const confirm = page.getByRole('dialog', { name: 'Revoke key pair' });
  await confirm.waitFor();
  expect(await focused(page)).toMatchObject({ inDialog: true });
  // Escape cancels, and focus returns to the button that opened the dialog.
  await page.keyboard.press('Escape');
  await confirm.waitFor({ state: 'detached' });
  expect((await focused(page)).name).toBe('Revoke Keyboard key');

  await page.keyboard.press('Enter');
  await confirm.waitFor();
  await tabTo(page, 'Revoke key pair');
  await page.keyboard.press('Enter');
  await confirm.waitFor({ state: 'detached' });
  await row.getByText('revoked').waitFor();
  expect(await row.getByRole('button', { name: 'Revoke Keyboard key' }).count()).toBe(0);
  expect(errors).toEqual([]);
});
