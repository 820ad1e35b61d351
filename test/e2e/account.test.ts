// Settings → Account in Chromium (API.md section 11.3). A passkey: registered through a virtual WebAuthn
// authenticator that the DevTools protocol adds to the page (`WebAuthn.addVirtualAuthenticator`), then the
// user signs out and signs in with the passkey alone. An authenticator app: its key read from the enrolment
// screen (nothing scanned), a code computed from it, then the two-step sign-in with the next code. The
// service's public URL is http://localhost:PORT: a browser refuses an IP address as the relying party.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { TestClock } from '../support/clock.ts';
import { freePort } from '../support/ports.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { codeAt } from '../merchants/factors-support.ts';
import { launchBrowser, type Launched } from './support/browser.ts';
import { PASSWORD, signUp } from './support/dashboard.ts';

// The service's clock stands still unless a test moves it: codes are computed at it, and the step-up window
// is left by moving it, never by waiting.
const clock = new TestClock();
let svc: TestService;
let browser: Launched;
beforeAll(async () => {
  const port = await freePort();
  [svc, browser] = await Promise.all([
    startTestService({
      listen: true,
      env: { PORT: String(port), SVC_PUBLIC_URL: `http://localhost:${port}` },
      clock,
    }),
    launchBrowser(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

async function openAccount(page: Page): Promise<void> {
  await page.getByRole('link', { name: 'Account' }).click();
  await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out', exact: true }).first().click();
  await page.getByRole('heading', { name: 'Sign in to your account' }).waitFor();
}

it('registers a passkey on Settings → Account, then signs in with the passkey alone', async () => {
  const { page, errors } = await browser.open();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  const email = await signUp(page, svc.url, 'Passkey Goods');
  await openAccount(page);
  await page.getByLabel('Passkey name').fill('Laptop');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByRole('list', { name: 'Your passkeys' }).getByText('Laptop', { exact: true }).waitFor();
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(credentials).toHaveLength(1);
  expect(credentials[0]!.isResidentCredential).toBe(true);

  await signOut(page);
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  // Back on the page signed out from.
  await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
  // The passkey's use is recorded, and the session list shows this one.
  await expect
    .poll(() => page.getByRole('list', { name: 'Your passkeys' }).textContent())
    .not.toContain('never');
  const me = await page.evaluate(() => fetch('/api/v1/merchant/me').then((r) => r.json()));
  expect(me.data.user.email).toBe(email);
  expect(errors).toEqual([]);
});

it('enrols an authenticator app from the key on the screen, then completes the two-step sign-in', async () => {
  const { page, errors } = await browser.open();
  const email = await signUp(page, svc.url, 'Totp Goods');
  await openAccount(page);
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  await page.getByRole('img', { name: /QR code/ }).waitFor();
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await page.getByLabel('Code from the app').fill(codeAt(secret, clock.now()));
  await page.getByRole('button', { name: 'Turn on' }).click();
  const codes = page.getByRole('list', { name: 'Recovery codes' });
  await codes.waitFor();
  expect(await codes.getByRole('listitem').count()).toBe(10);
  await page.getByRole('button', { name: 'I saved them' }).click();
  await page.getByText('On: sign-in asks for a code of your app.').waitFor();

  await signOut(page);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
  // The next step's code: the enrolment took this step's, and a code is accepted once.
  clock.advance(30_000);
  await page.getByLabel('Authentication code').fill(codeAt(secret, clock.now()));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
  await page.getByText('On: sign-in asks for a code of your app.').waitFor();

  // Past the 10 minutes a sign-in with a factor opens, a sensitive action asks for the factor in place, then
  // goes through.
  clock.advance(11 * 60_000);
  await page.getByRole('button', { name: 'Regenerate recovery codes' }).click();
  const dialog = page.getByRole('dialog', { name: 'Confirm it’s you' });
  await dialog.waitFor();
  await dialog.getByLabel('Authentication code').fill(codeAt(secret, clock.now()));
  await dialog.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('list', { name: 'Recovery codes' }).waitFor();
  await page.getByRole('button', { name: 'I saved them' }).click();
  await page.getByText('10 unused.', { exact: false }).waitFor();
  // The one failed request is the 403 step_up_required the dialog answered.
  expect(errors).toEqual([expect.stringMatching(/status of 403 .*\/auth\/mfa\/recovery-codes\)$/)]);
});
