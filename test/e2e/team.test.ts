// A merchant is a team, in the browser (API.md section 11.2): the owner invites from Settings -> Team, the
// invitation email reaches a real SMTP server, its link opened in Chromium signs the new developer in, who
// works; a viewer finds no write control on the four Developers tabs (and axe finds nothing serious there);
// the owner removes the developer and rotates the secrets it saw. Any console error fails the test.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { eventually } from '../support/eventually.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startSmtpServer, type Inbox } from '../support/smtp.ts';
import { call, invite, tokenOf } from '../members/support.ts';
import { launchBrowser, seriousViolations, type Launched, type Session } from './support/browser.ts';
import { openTab, settled, signInWith } from './support/dashboard.ts';

let inbox: Inbox;
let svc: TestService;
let browser: Launched;
let owner: TestMerchant;
let ownerSession: Session;
let devSession: Session;
const devEmail = `dev-${randomBytes(5).toString('hex')}@example.com`;
const DEV_PASSWORD = 'the developer password';
let devKeyId = '';

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await signInWith(page, svc.url, { email, password });
}

beforeAll(async () => {
  inbox = await startSmtpServer();
  [svc, browser] = await Promise.all([
    startTestService({ listen: true, env: { SVC_SMTP_URL: inbox.url } }),
    launchBrowser(),
  ]);
  owner = await signupMerchant(svc.app, 'Team Goods');
  ownerSession = await browser.open();
  await signIn(ownerSession.page, owner.email, owner.password);
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
  await inbox?.close();
});

describe('a team in the dashboard', () => {
  it('invites from Settings → Team; the emailed link, opened in Chromium, signs the developer in', async () => {
    const { page } = ownerSession;
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Team' }).click();
    await page.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
    await settled(page);
    const form = page.getByRole('form', { name: 'Invite someone' });
    await form.getByLabel('Email').fill(devEmail);
    await form.getByRole('combobox').selectOption('developer');
    await form.getByRole('button', { name: 'Invite', exact: true }).click();
    const shown = (await page.getByLabel('Invitation link', { exact: true }).textContent())!;
    expect(shown).toMatch(/\/dashboard\/join#token=svc_inv_/);
    expect(await page.getByRole('button', { name: 'Copy invitation link' }).isVisible()).toBe(true);
    await page.getByRole('cell', { name: devEmail, exact: true }).waitFor();
    expect(await seriousViolations(page), 'axe on Team, as its owner').toEqual([]);

    const mail = await eventually(
      async () => inbox.messages.find((m) => JSON.stringify(m.to).includes(devEmail)),
      { what: 'the invitation email' },
    );
    expect(mail.subject).toBe('You are invited to Team Goods on svc');
    const link = /https?:\/\/\S+#token=svc_inv_\S+/.exec(mail.text ?? '')?.[0];
    expect(link).toBe(shown);

    devSession = await browser.open();
    const dev = devSession.page;
    await dev.goto(link!);
    await dev.getByRole('heading', { name: 'Join Team Goods' }).waitFor();
    expect(await dev.getByText('You are invited as developer').isVisible()).toBe(true);
    expect(await seriousViolations(dev), 'axe on the invitation page').toEqual([]);
    await dev.getByLabel('Your name').fill('Dee Veloper');
    await dev.getByLabel('Choose a password').fill(DEV_PASSWORD);
    await dev.getByRole('button', { name: 'Accept invitation' }).click();
    await dev.getByRole('heading', { level: 1, name: 'Developers' }).waitFor();
    expect(new URL(dev.url()).pathname).toBe('/dashboard/settings/developers/apps');

    // The developer works: a key pair of its own.
    await openTab(dev, 'Credentials');
    await dev.getByRole('button', { name: 'Generate key pair' }).click();
    await dev
      .getByRole('dialog', { name: 'Generate key pair' })
      .getByRole('button', { name: 'Generate' })
      .click();
    const generated = dev.getByRole('dialog', { name: 'Key pair generated' });
    expect(await generated.locator('code').first().textContent()).toMatch(/^svc_test_sk_/);
    await generated.getByRole('button', { name: 'I have saved it' }).click();
    const keys = await call(svc.app, owner.auth, 'GET', '/api-keys');
    devKeyId = (keys.body.data.items as { id: string }[])[0]!.id;

    // The link worked once.
    const again = await call(svc.app, undefined, 'POST', '/auth/invitation', { token: tokenOf(link!) });
    expect([again.status, again.body.error.code]).toEqual([400, 'invalid_invitation']);
    expect(ownerSession.errors).toEqual([]);
    expect(devSession.errors).toEqual([]);
  });

  it('shows a viewer no write control on the four Developers tabs, and axe finds nothing serious', async () => {
    const app = await call(svc.app, owner.auth, 'POST', '/developer/apps', {
      name: 'Viewer Sees',
      redirect_uris: ['https://viewer.example.com/cb'],
      allowed_scopes: ['public:read'],
    });
    const hook = await call(svc.app, owner.auth, 'POST', '/webhooks', {
      url: 'https://hooks.example.com/team',
      events: ['order.created'],
    });
    expect([app.status, hook.status]).toEqual([201, 201]);
    const viewerEmail = `viewer-${randomBytes(5).toString('hex')}@example.com`;
    const invitation = await invite(svc.app, owner, viewerEmail, 'viewer');
    const accepted = await call(svc.app, undefined, 'POST', '/auth/accept-invitation', {
      token: tokenOf(invitation.url),
      password: 'the viewer password',
    });
    expect(accepted.status).toBe(200);

    const viewer = await browser.open();
    const { page } = viewer;
    await signIn(page, viewerEmail, 'the viewer password');
    const writeControls =
      /^(Create app|Edit|Rotate secret|Delete|Generate key pair|Rotate|Revoke|Add endpoint|Reveal secret|Disable|Enable|Recover failed|Send test event|Export CSV|Export JSON Lines|Disconnect)/;
    const pages: [string, string][] = [
      ['OAuth Apps', '/settings/developers/apps'],
      ['an app', `/settings/developers/apps/${app.body.data.id}`],
      ['Credentials', '/settings/developers/keys'],
      ['Webhooks', '/settings/developers/webhooks'],
      ['a webhook', `/settings/developers/webhooks/${hook.body.data.id}`],
      ['Logs', '/settings/developers/logs'],
    ];
    for (const [name, path] of pages) {
      await page.goto(`${svc.url}/dashboard${path}`);
      await page.getByRole('heading', { level: 1, name: 'Developers' }).waitFor();
      await settled(page);
      await page.locator('#section-title').waitFor();
      const main = page.locator('main');
      expect(await main.getByRole('button', { name: writeControls }).count(), name).toBe(0);
      expect(await main.getByRole('link', { name: /^(Create app|Add endpoint)$/ }).count(), name).toBe(0);
      expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
    }
    // The developer's key pair is listed to the viewer, without its controls; the developer had them.
    await page.goto(`${svc.url}/dashboard/settings/developers/keys`);
    await settled(page);
    expect(await page.locator('main tbody tr').count()).toBeGreaterThan(0);
    await devSession.page.goto(`${svc.url}/dashboard/settings/developers/keys`);
    await settled(devSession.page);
    expect(await devSession.page.getByRole('button', { name: /^Rotate / }).count()).toBeGreaterThan(0);

    // Nor on Settings -> Team: the members, and no control.
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Team' }).click();
    await page.getByRole('cell', { name: owner.email, exact: true }).waitFor();
    expect(await page.getByRole('button', { name: /^(Invite|Remove|Withdraw)/ }).count()).toBe(0);
    expect(await page.getByRole('combobox').count()).toBe(0);
    expect(await seriousViolations(page), 'axe on Team').toEqual([]);
    expect(viewer.errors).toEqual([]);
    await viewer.close();
  });

  it('removes the developer, lists what it saw, and rotates it all with a grace', async () => {
    const ownerKey = await call(svc.app, owner.auth, 'POST', '/api-keys', { scopes: ['public:read'] });
    const { page } = ownerSession;
    await page.goto(`${svc.url}/dashboard/settings/team`);
    await page.getByRole('button', { name: `Remove ${devEmail}` }).click();
    await page
      .getByRole('dialog', { name: 'Remove member' })
      .getByRole('button', { name: 'Remove member' })
      .click();
    const exposed = page.getByRole('dialog', { name: `Credentials ${devEmail} saw` });
    const list = exposed.getByRole('list', { name: 'Exposed credentials' });
    await list.waitFor();
    expect(await list.getByRole('listitem').allTextContents()).toEqual([expect.stringContaining(devKeyId)]);
    expect(await list.textContent()).not.toContain(ownerKey.body.data.id);
    expect(await seriousViolations(page), 'axe on the exposed credentials').toEqual([]);

    // Its session ended at once: its next call is refused, and its page goes to sign-in.
    await devSession.page.reload();
    await devSession.page.getByRole('heading', { name: 'Sign in to your account' }).waitFor();

    await exposed.getByRole('radio', { name: 'In 1 hour' }).check();
    const request = page.waitForRequest((r) => r.url().endsWith('/exposed-credentials/rotate'));
    await exposed.getByRole('button', { name: 'Rotate all' }).click();
    expect((await request).postDataJSON()).toEqual({ previous_expires_in: 3600 });
    const secrets = page.getByRole('dialog', { name: 'New secrets' });
    expect(await secrets.locator('code').first().textContent()).toMatch(/^svc_test_sk_/);
    await secrets.getByRole('button', { name: 'I have saved it' }).click();
    await page.getByRole('cell', { name: devEmail, exact: true }).waitFor({ state: 'detached' });

    // The Logs tab names who did what by email.
    await page
      .getByRole('navigation', { name: 'Settings' })
      .getByRole('link', { name: 'Developers' })
      .click();
    await openTab(page, 'Logs');
    await settled(page);
    const rows = page.locator('tr', { has: page.getByText('api_key.created', { exact: true }) });
    expect(await rows.filter({ hasText: devEmail }).count()).toBeGreaterThan(0);
    expect(await page.getByText('member.removed').count()).toBeGreaterThan(0);
    expect(ownerSession.errors).toEqual([]);
  });
});
