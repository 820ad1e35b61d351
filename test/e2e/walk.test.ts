// The whole Developers page in a real browser, as a merchant walks it: sign up, create an OAuth app and copy
// its secret, generate a key pair, add a webhook to a local receiver, send a test event, read the delivery
// and its attempt, retry it, and find every one of those actions in Logs. Any console error fails the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { launchBrowser, type Launched, type Session } from './support/browser.ts';
import { openTab, settled, signUp } from './support/dashboard.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

let svc: TestService;
let browser: Launched;
let receiver: Receiver;
let s: Session;

beforeAll(async () => {
  [svc, browser, receiver] = await Promise.all([
    startTestService({ listen: true, workers: true }),
    launchBrowser(),
    startReceiver('{"received":true,"by":"e2e receiver"}'),
  ]);
  s = await browser.open();
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await svc?.close();
});

describe('a merchant walks Settings -> Developers', () => {
  const done = { app: false, key: false, webhook: false, test: false, retry: false, delivery: '' };

  it('signs up and lands on Developers in test mode', async () => {
    const { page } = s;
    await signUp(page, svc.url);
    await expect.poll(() => page.getByRole('note', { name: 'Test mode' }).isVisible()).toBe(true);
    expect(await page.getByRole('switch', { name: 'Test mode' }).getAttribute('aria-checked')).toBe('true');
    expect(s.errors).toEqual([]);
  });

  it('creates an OAuth app with two redirect URIs and copies its secret from the show-once dialog', async () => {
    const { page } = s;
    await openTab(page, 'OAuth Apps');
    await page.getByRole('link', { name: 'Create app' }).click();
    await page.getByLabel('Name').fill('Acme Sync');
    await page.getByRole('textbox', { name: 'Redirect URI 1' }).fill('http://127.0.0.1:8123/callback');
    await page.getByRole('button', { name: 'Add redirect URI' }).click();
    await page
      .getByRole('textbox', { name: 'Redirect URI 2' })
      .fill('https://sync.example.com/oauth/callback');
    await page.getByRole('checkbox', { name: /public:write/ }).check();
    await page.getByRole('button', { name: 'Create app' }).click();

    const dialog = page.getByRole('dialog', { name: 'App created' });
    await dialog.waitFor();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toMatch(/will not be shown again/);
    const shown = await dialog.locator('code').nth(1).textContent();
    expect(shown).toMatch(/^svc_test_cs_/);
    await dialog.getByRole('button', { name: 'Copy client secret' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(shown);
    await dialog.getByRole('button', { name: 'I have saved it' }).click();

    await page.getByRole('heading', { name: 'Acme Sync' }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/dashboard\/settings\/developers\/apps\/app_/);
    // .first(): the Install card offers the same URI in its redirect URI choice
    expect(await page.getByText('https://sync.example.com/oauth/callback').first().isVisible()).toBe(true);
    expect(await page.getByText(shown!.slice(-4)).count()).toBeGreaterThan(0);
    expect(s.errors).toEqual([]);
    done.app = true;
  });

  it('generates a key pair: the secret once, then masked to its last four', async () => {
    const { page } = s;
    await openTab(page, 'Credentials');
    await settled(page);
    await page.getByRole('button', { name: 'Generate key pair' }).click();
    const form = page.getByRole('dialog', { name: 'Generate key pair' });
    await form.getByLabel('Name').fill('Checkout server');
    await form.getByRole('button', { name: 'Generate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Key pair generated' });
    await dialog.waitFor();
    const secret = await dialog.locator('code').first().textContent();
    expect(secret).toMatch(/^svc_test_sk_/);
    await dialog.getByRole('button', { name: 'I have saved it' }).click();

    const row = page.getByRole('row', { name: /Checkout server/ });
    await row.waitFor();
    expect(await row.textContent()).toContain(`svc_test_sk_••••${secret!.slice(-4)}`);
    expect(await row.textContent()).not.toContain(secret);
    expect(await row.getByText('active').isVisible()).toBe(true);
    expect(s.errors).toEqual([]);
    done.key = true;
  });

  it('adds a webhook to a local receiver with the events of one category', async () => {
    const { page } = s;
    await openTab(page, 'Webhooks');
    await settled(page);
    await page.getByRole('link', { name: 'Add endpoint' }).click();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page
      .getByRole('checkbox', { name: /orders/i })
      .first()
      .check();
    expect(await page.getByRole('checkbox', { name: /order\.paid/ }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: /cart\.abandoned/ }).isChecked()).toBe(false);
    await page.getByRole('checkbox', { name: /cart\.abandoned/ }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Endpoint added' });
    await dialog.waitFor();
    expect(await dialog.locator('code').first().textContent()).toMatch(/^whsec_/);
    await dialog.getByRole('button', { name: 'I have saved it' }).click();
    await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
    const events = page.getByRole('list', { name: 'Subscribed events' });
    expect(await events.textContent()).toContain('order.created');
    expect(await events.textContent()).toContain('cart.abandoned');
    expect(s.errors).toEqual([]);
    done.webhook = true;
  });

  it('sends a test event and shows that it succeeded, with status, duration and the response', async () => {
    const { page } = s;
    await page.getByLabel('Event type').selectOption('order.paid');
    await page.getByRole('button', { name: 'Send test event' }).click();
    const result = page.getByTestId('test-result');
    await result.waitFor();
    const text = await result.textContent();
    expect(text).toContain('succeeded');
    expect(text).toContain('200');
    expect(text).toMatch(/\d+ ms/);
    expect(text).toContain('e2e receiver');
    expect(receiver.received.length).toBeGreaterThan(0);
    const last = receiver.received[receiver.received.length - 1]!;
    expect(last.headers['webhook-signature']).toMatch(/^v1,/);
    expect(JSON.parse(last.body).type).toBe('order.paid');
    expect(s.errors).toEqual([]);
    done.test = true;
  });

  it('shows the delivery and its attempt, and retries it', async () => {
    const { page } = s;
    const deliveries = page.getByRole('region', { name: 'Deliveries' });
    const link = deliveries.getByRole('link', { name: 'order.paid' });
    await link.waitFor();
    expect(await deliveries.getByRole('row', { name: /order\.paid/ }).textContent()).toContain('succeeded');
    await link.click();
    await page.getByRole('heading', { name: 'Delivery of order.paid' }).waitFor();
    await page.getByText('Attempt 1').waitFor();
    const attempts = page.getByRole('region', { name: 'Attempts' });
    expect(await attempts.textContent()).toContain('200');
    const before = receiver.received.length;
    // It succeeded already: sending it again is confirmed first.
    await page.getByRole('button', { name: 'Send again' }).click();
    await page
      .getByRole('dialog', { name: 'Send a delivered event again' })
      .getByRole('button', { name: 'Send again' })
      .click();
    await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBeGreaterThan(before);
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          await settled(page);
          return page.getByText('Attempt 2').count();
        },
        { timeout: 15_000 },
      )
      .toBe(1);
    expect(s.errors).toEqual([]);
    done.retry = true;
    done.delivery = page.url();
  });

  it('finds each of those actions in Logs, with its metadata pretty-printed', async () => {
    const { page } = s;
    await openTab(page, 'Logs');
    await settled(page);
    const expected = [
      ...(done.app ? ['developer_app.created'] : []),
      ...(done.key ? ['api_key.created'] : []),
      ...(done.webhook ? ['webhook.created'] : []),
      ...(done.test ? ['webhook.tested'] : []),
      ...(done.retry ? ['webhook.delivery_retried'] : []),
    ];
    const table = page.getByRole('table');
    await table.waitFor();
    const text = await table.textContent();
    for (const action of expected) expect(text).toContain(action);
    expect(expected).toHaveLength(5);

    const row = page.getByRole('row', { name: /api_key\.created/ });
    await row.getByRole('button', { name: /Show details/ }).click();
    const metadata = page.getByLabel(/^Metadata of log_/);
    const json = JSON.parse((await metadata.textContent())!);
    expect(json.actor.type).toBe('user');
    expect(await metadata.textContent()).toContain('\n  "actor"');
    const time = row.locator('time');
    expect(await time.getAttribute('title')).toMatch(/UTC$/);

    await page.getByLabel('Family').selectOption('webhook');
    await page.getByRole('button', { name: 'Apply' }).click();
    // The filtered page replaces the table; until it lands the old rows are still there (a race seen in CI).
    await page.getByRole('row', { name: /api_key\.created/ }).waitFor({ state: 'detached' });
    await settled(page);
    const filtered = (await page.getByRole('table').textContent())!;
    expect(filtered).toContain('webhook.created');
    expect(filtered).not.toContain('api_key.created');
    expect(s.errors).toEqual([]);
  });

  it('signs out, and a read the last view had scheduled does not outlive it', async () => {
    const { page } = s;
    // Sending a delivery again schedules a read of it; signing out at once must cancel that read, or it
    // reaches the service after the session ended and the browser logs its 401 (a flake seen under load).
    await page.goto(done.delivery);
    await page.getByRole('heading', { name: 'Delivery of order.paid' }).waitFor();
    await page.getByRole('button', { name: 'Send again' }).click();
    const sent = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/retry'));
    await page
      .getByRole('dialog', { name: 'Send a delivered event again' })
      .getByRole('button', { name: 'Send again' })
      .click();
    expect((await sent).status()).toBe(202);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to your account' }).waitFor();
    await page.waitForTimeout(1500);
    await page.goto(`${svc.url}/dashboard/settings/developers/keys`);
    await page.getByRole('heading', { name: 'Sign in to your account' }).waitFor();
    expect(s.errors).toEqual([]);
  });
});
