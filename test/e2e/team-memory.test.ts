// The team's memory in the browser (API.md section 12.4): a developer removed with "Later" chosen still shows
// on the Team tab ("1 former member saw credentials that still work"), its key is marked on the Credentials
// tab, and "Rotate all" from the notice clears both. Requiring a second factor asks first, naming the member
// without one, shows the saved state at once and says so, and puts the box back when the save fails. The member
// held to enrolment sees a page that says why and how, at 1280 and 375 px, and the dashboard once enrolled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { systemClock } from '../../src/lib/time.ts';
import { addMember, call, MEMBER_PASSWORD, type TestMember } from '../members/support.ts';
import { codeAt } from '../merchants/factors-support.ts';
import {
  launchBrowser,
  PHONE,
  screenshot,
  seriousViolations,
  type Launched,
  type Session,
} from './support/browser.ts';
import { openTab, settled, signInWith } from './support/dashboard.ts';

let svc: TestService;
let browser: Launched;
let owner: TestMerchant;
let ownerSession: Session;
let dev: TestMember;
let viewer: TestMember;
let devKeyId = '';

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService({ listen: true }), launchBrowser()]);
  owner = await signupMerchant(svc.app, 'Memory Goods');
  dev = await addMember(svc.app, owner, 'developer');
  viewer = await addMember(svc.app, owner, 'viewer');
  const key = await call(svc.app, dev.auth, 'POST', '/api-keys', { name: 'the developer key' });
  devKeyId = key.body.data.id as string;
  // removed, and the removal dialog's "Later" chosen: nothing rotated
  expect((await call(svc.app, owner.auth, 'DELETE', `/members/${dev.userId}`)).status).toBe(200);
  ownerSession = await browser.open();
  await signInWith(ownerSession.page, svc.url, owner);
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('the former members notice', () => {
  it('keeps the notice on Team and the mark on Credentials until Rotate all', async () => {
    const { page } = ownerSession;
    await openTab(page, 'Credentials');
    await settled(page);
    const row = page.locator(`tr[data-key-id="${devKeyId}"]`);
    await row.getByTestId('seen-by-former-member').waitFor();
    expect(await row.getByTestId('seen-by-former-member').getAttribute('title')).toContain(dev.email);

    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Team' }).click();
    const notice = page.getByRole('status').filter({ hasText: 'former member' });
    await notice.getByRole('heading', { name: '1 former member saw credentials that still work' }).waitFor();
    expect(await notice.textContent()).toContain(dev.email);
    expect(await seriousViolations(page), 'axe on Team with the notice').toEqual([]);
    await screenshot(page, 'team-former-members-1280');

    await notice.getByRole('button', { name: `Rotate all that ${dev.email} saw` }).click();
    const exposed = page.getByRole('dialog', { name: `Credentials ${dev.email} saw` });
    await exposed.getByRole('list', { name: 'Exposed credentials' }).waitFor();
    // with a grace the old key still works, and the notice rightly stays until it ends: at once here
    await exposed.getByRole('radio', { name: 'Now' }).check();
    await exposed.getByRole('button', { name: 'Rotate all' }).click();
    const secrets = page.getByRole('dialog', { name: 'New secrets' });
    expect(await secrets.locator('code').first().textContent()).toMatch(/^svc_test_sk_/);
    await secrets.getByRole('button', { name: 'I have saved it' }).click();
    await page.getByRole('heading', { name: /former member/ }).waitFor({ state: 'detached' });

    await page
      .getByRole('navigation', { name: 'Settings' })
      .getByRole('link', { name: 'Developers' })
      .click();
    await openTab(page, 'Credentials');
    await settled(page);
    expect(await page.getByTestId('seen-by-former-member').count()).toBe(0);
    expect(ownerSession.errors).toEqual([]);
  });
});

describe('requiring a second factor', () => {
  it('asks first naming the member without one, shows it saved at once, and puts it back on failure', async () => {
    // the owner has a factor of its own: the members without one are the viewer alone
    const started = await call(svc.app, owner.auth, 'POST', '/auth/mfa/totp');
    const confirmed = await call(svc.app, owner.auth, 'POST', '/auth/mfa/totp/confirm', {
      code: codeAt(started.body.data.secret as string, systemClock.now()),
    });
    expect(confirmed.status).toBe(200);

    const { page } = ownerSession;
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Account' }).click();
    const box = page.getByRole('checkbox', { name: /Require a second factor of every member/ });
    await box.waitFor();
    expect(await box.isChecked()).toBe(false);

    // a failing save: the box goes back, and the page says it was not saved
    await page.route('**/api/v1/merchant/settings', (route) =>
      route.request().method() === 'PATCH'
        ? route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({
              error: { code: 'service_unavailable', message: 'Try again.', request_id: 'req_x' },
            }),
          })
        : route.continue(),
    );
    await box.click();
    let dialog = page.getByRole('dialog', { name: 'Require a second factor?' });
    expect(await dialog.getByRole('list', { name: 'Members without a second factor' }).textContent()).toBe(
      viewer.email,
    );
    await dialog.getByRole('button', { name: 'Require it' }).click();
    await page.getByText('Not saved: the setting is back as it was.').waitFor();
    expect(await box.isChecked()).toBe(false);
    await page.unroute('**/api/v1/merchant/settings');

    // the real save: the box is on before the answer, then "Saved"
    await box.click();
    dialog = page.getByRole('dialog', { name: 'Require a second factor?' });
    const answered = page.waitForResponse(
      (r) => r.url().endsWith('/settings') && r.request().method() === 'PATCH',
    );
    await dialog.getByRole('button', { name: 'Require it' }).click();
    expect(await box.isChecked()).toBe(true);
    expect((await answered).status()).toBe(200);
    await page.getByText('Saved: every member needs a second factor').waitFor();
    expect(await box.isChecked()).toBe(true);
    expect(await seriousViolations(page), 'axe on Account').toEqual([]);
    const settings = await call(svc.app, owner.auth, 'GET', '/settings');
    expect(settings.body.data.require_mfa).toBe(true);
  });

  it('shows the member held to enrolment a page that says why and how, not an error', async () => {
    for (const viewport of [undefined, PHONE]) {
      const held = await browser.open(viewport ? { viewport } : {});
      const { page } = held;
      await page.goto(`${svc.url}/dashboard/signin`);
      await page.getByLabel('Email').fill(viewer.email);
      await page.getByLabel('Password').fill(MEMBER_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const banner = page.getByTestId('enrolment-banner');
      await banner.getByRole('heading', { name: 'Memory Goods requires a second factor' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/dashboard/settings/account');
      expect(await banner.textContent()).toContain('An authenticator app');
      expect(await banner.textContent()).toContain('A passkey');
      await settled(page);
      expect(await page.getByRole('heading', { name: 'Sessions' }).count()).toBe(0);
      expect(await page.getByRole('navigation', { name: 'Settings' }).count()).toBe(0);
      expect(await page.locator('.error-box').count()).toBe(0);
      expect(await seriousViolations(page), 'axe on the enrolment page').toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        viewport?.width ?? 1280,
      );
      await screenshot(page, `enrolment-page-${viewport ? 375 : 1280}`);
      expect(held.errors).toEqual([]);
      await held.close();
    }
  });
});
