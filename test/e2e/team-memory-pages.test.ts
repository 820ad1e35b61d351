// Issue 47 item by item in Chromium, each page at 1280 and at 375 px with a screenshot of each in
// test-results/screenshots/item<N>-...: the former member's notice and credential mark (1); the confirmation
// naming the member without a factor (2); the Account page in padded cards with buttons of their own width,
// sessions named by their client with the raw user agent on hover, and a guide link (3); the Logs filter's
// every family and a subtitle that says what the log records (5); a second invitation that says it replaces
// the first (6); an app webhook naming its app and the listener reading as a listener (7). Item 4 and 8 are
// test/e2e/widths.test.ts. The last test walks the newcomer's list of the first paragraph again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { addMember, call, type TestMember } from '../members/support.ts';
import { DESKTOP, launchBrowser, PHONE, screenshot, type Launched, type Session } from './support/browser.ts';
import { settled, signInWith } from './support/dashboard.ts';

let svc: TestService;
let browser: Launched;
let owner: TestMerchant;
let viewer: TestMember;
let dev: TestMember;
let s: Session;
let devKeyId = '';
let appId = '';
let listening: AbortController | undefined;
const WIDTHS = [DESKTOP, PHONE];

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService({ listen: true }), launchBrowser()]);
  owner = await signupMerchant(svc.app, 'Memory Pages Ltd');
  dev = await addMember(svc.app, owner, 'developer');
  viewer = await addMember(svc.app, owner, 'viewer');
  devKeyId = (await call(svc.app, dev.auth, 'POST', '/api-keys', { name: 'the developer key' })).body.data.id;
  // removed with "Later": the key the developer saw still works
  expect((await call(svc.app, owner.auth, 'DELETE', `/members/${dev.userId}`)).status).toBe(200);
  const app = await call(svc.app, owner.auth, 'POST', '/developer/apps', {
    name: 'Inventory Sync',
    redirect_uris: ['https://sync.example.com/oauth/callback'],
    allowed_scopes: ['public:read'],
  });
  appId = app.body.data.id;
  const hook = await call(svc.app, owner.auth, 'POST', '/webhooks', {
    url: 'https://hooks.example.com/inventory',
    events: ['order.paid'],
    app_id: appId,
  });
  expect(hook.status).toBe(201);
  // Sessions of other clients than this browser, as a person who uses the CLI and curl would have.
  for (const agent of ['svc-cli (linux; node 22.12.0)', 'curl/8.5.0']) {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/login',
      headers: { 'user-agent': agent },
      payload: { email: owner.email, password: owner.password },
    });
    expect(res.statusCode).toBe(200);
  }
  s = await browser.open();
  await signInWith(s.page, svc.url, owner);
});
afterAll(async () => {
  listening?.abort();
  await browser?.close();
  await svc?.close();
});

async function at(page: Page, path: string, viewport: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(viewport);
  await page.goto(`${svc.url}/dashboard${path}`);
  await page.getByRole('heading', { level: 1 }).waitFor();
  await settled(page);
}

const fits = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('issue 47, item by item, at 1280 and 375 px', () => {
  it('1: keeps the former member on Team and marks the key on Credentials', async () => {
    const { page } = s;
    for (const viewport of WIDTHS) {
      await at(page, '/settings/team', viewport);
      const notice = page.getByRole('status').filter({ hasText: 'former member' });
      await notice
        .getByRole('heading', { name: '1 former member saw credentials that still work' })
        .waitFor();
      expect(await notice.getByRole('button', { name: `Rotate all that ${dev.email} saw` }).count()).toBe(1);
      expect(await fits(page)).toBe(true);
      await screenshot(page, `item1-team-notice-${viewport.width}`);
      await at(page, '/settings/developers/keys', viewport);
      const mark = page.locator(`tr[data-key-id="${devKeyId}"]`).getByTestId('seen-by-former-member');
      await mark.waitFor();
      expect(await mark.getAttribute('title')).toContain(dev.email);
      await screenshot(page, `item1-credentials-mark-${viewport.width}`);
    }
  });

  it('2: asks before requiring a second factor, naming the member without one', async () => {
    const { page } = s;
    for (const viewport of WIDTHS) {
      await at(page, '/settings/account', viewport);
      const box = page.getByRole('checkbox', { name: /Require a second factor of every member/ });
      await box.click();
      const dialog = page.getByRole('dialog', { name: 'Require a second factor?' });
      const names = await dialog.getByRole('list', { name: 'Members without a second factor' }).textContent();
      expect(names).toContain(viewer.email);
      await screenshot(page, `item2-require-confirm-${viewport.width}`);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect(await box.isChecked()).toBe(false);
    }
    // The newcomer's second click silently undid the first: the box now shows the choice at once, is
    // disabled until the answer, and goes back with a message when the save fails (the answer is held
    // until the test has seen the box during the save).
    let answer = () => {};
    const held = new Promise<void>((resolve) => (answer = resolve));
    await page.route('**/api/v1/merchant/settings', async (route) => {
      if (route.request().method() !== 'PATCH') return route.continue();
      await held;
      return route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({
          error: { code: 'service_unavailable', message: 'Try again.', request_id: 'req_x' },
        }),
      });
    });
    const box = page.getByRole('checkbox', { name: /Require a second factor of every member/ });
    await box.click();
    await page
      .getByRole('dialog', { name: 'Require a second factor?' })
      .getByRole('button', { name: 'Require it' })
      .click();
    expect(await box.isChecked()).toBe(true);
    expect(await box.isDisabled()).toBe(true);
    answer();
    await page.getByText('Not saved: the setting is back as it was.').waitFor();
    expect(await box.isChecked()).toBe(false);
    await page.unroute('**/api/v1/merchant/settings');
    s.errors.length = 0; // the refused save's 503, which the page rightly reports
    expect((await call(svc.app, owner.auth, 'GET', '/settings')).body.data.require_mfa).toBe(false);
  });

  it('3: lays the Account page out as the other tabs, names sessions by client, and links its guide', async () => {
    const { page } = s;
    for (const viewport of WIDTHS) {
      await at(page, '/settings/account', viewport);
      const sessions = page.getByRole('list', { name: 'Your sessions' });
      const clients = sessions.getByTestId('session-client');
      await expect
        .poll(() => clients.allTextContents())
        .toEqual(expect.arrayContaining(['Chrome on Linux', 'svc CLI', 'curl']));
      // the raw user agent on hover
      const chrome = clients.filter({ hasText: 'Chrome on Linux' }).first();
      expect(await chrome.getAttribute('title')).toMatch(/^Mozilla\/5\.0 .*Chrome\//);
      expect(await sessions.textContent()).not.toContain('Mozilla/5.0');
      // padded cards, and buttons of their own width
      const card = page.locator('section.card', { has: page.getByRole('heading', { name: 'Sessions' }) });
      const padding = await card.evaluate((el) => parseFloat(getComputedStyle(el).paddingLeft));
      expect(padding).toBeGreaterThanOrEqual(16);
      const setup = page.getByRole('button', { name: 'Set up an authenticator app' });
      const width = (await setup.boundingBox())!.width;
      expect(width).toBeLessThan(320);
      const guide = page.getByRole('link', { name: 'Quickstart' });
      expect(await guide.getAttribute('href')).toBe('/guides/quickstart#7-protect-your-account');
      expect(await fits(page)).toBe(true);
      await screenshot(page, `item3-account-${viewport.width}`);
    }
    const guide = await fetch(`${svc.url}/guides/quickstart`);
    expect(await guide.text()).toContain('id="7-protect-your-account"');
  });

  it('5: offers every family the log holds and says what it records', async () => {
    const { page } = s;
    for (const viewport of WIDTHS) {
      await at(page, '/settings/developers/logs', viewport);
      const families = await page.getByLabel('Family').locator('option').allTextContents();
      for (const family of [
        'member.*',
        'merchant.*',
        'webhook.*',
        'developer_app.*',
        'api_key.*',
        'audit_log.*',
      ]) {
        expect(
          families.some((f) => f.includes(family)),
          family,
        ).toBe(true);
      }
      expect(families.some((f) => /listener/i.test(f))).toBe(true);
      await page.getByLabel('Family').selectOption('member');
      const actions = await page.getByLabel('Action').locator('option').allTextContents();
      expect(actions).toEqual(expect.arrayContaining(['member.removed', 'member.invited', 'member.joined']));
      const subtitle = await page.locator('.section-description').first().textContent();
      expect(subtitle).toMatch(/members/);
      expect(subtitle).toMatch(/settings/);
      await screenshot(page, `item5-logs-filters-${viewport.width}`);
      await page.getByRole('button', { name: 'Apply' }).click();
      await settled(page);
      await page.locator('main tbody').getByText('member.removed').first().waitFor();
    }
  });

  it('6: says a second invitation replaces the first, whose link no longer works', async () => {
    const { page } = s;
    for (const viewport of WIDTHS) {
      await at(page, '/settings/team', viewport);
      const email = `twice-${viewport.width}@example.com`;
      const form = page.getByRole('form', { name: 'Invite someone' });
      for (const round of [1, 2]) {
        await form.getByLabel('Email').fill(email);
        await form.getByRole('button', { name: 'Invite' }).click();
        await page.getByRole('button', { name: 'Copy invitation link' }).waitFor();
        const replaced = page.getByTestId('invitation-replaced');
        if (round === 1) expect(await replaced.count()).toBe(0);
        else
          expect(await replaced.textContent()).toMatch(
            /It replaces the invitation sent to .*: that link no longer works\./,
          );
      }
      expect(await fits(page)).toBe(true);
      await screenshot(page, `item6-invitation-replaced-${viewport.width}`);
    }
  });

  it('7: names an app webhook by its app, and reads the listener as a listener', async () => {
    listening = new AbortController();
    const stream = await fetch(`${svc.url}/api/v1/merchant/webhooks/listen`, {
      headers: { ...owner.auth, 'x-svc-mode': 'test', accept: 'text/event-stream' },
      signal: listening.signal,
    });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    await reader.read(); // the secret: the listener exists from here
    const { page } = s;
    for (const viewport of WIDTHS) {
      await at(page, '/settings/developers/webhooks', viewport);
      const app = page.getByTestId('webhook-app');
      await expect.poll(() => app.textContent()).toContain('App webhook of Inventory Sync');
      await page.getByRole('link', { name: 'Listener (svc listen)' }).waitFor();
      expect(await page.getByText('svc-listen:', { exact: true }).count()).toBe(0);
      expect(await fits(page)).toBe(true);
      await screenshot(page, `item7-webhooks-names-${viewport.width}`);
    }
    listening.abort();
    expect(s.errors.filter((e) => !/aborted|net::ERR_ABORTED/.test(e))).toEqual([]);
  });
});
