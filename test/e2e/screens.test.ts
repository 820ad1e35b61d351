// Every view of the dashboard, at 1280 px and at 375 px: an axe-core scan (no serious or critical
// violation; the colour rules at 1280 px only), no horizontal scrolling of the page, no console error, and a
// full-page screenshot in test-results/screenshots/ for a person to look at. The data is made through the
// merchant API first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import {
  DESKTOP,
  launchBrowser,
  PHONE,
  screenshot,
  seriousViolations,
  type Launched,
  type Session,
} from './support/browser.ts';
import { settled, signInWith } from './support/dashboard.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

let svc: TestService;
let browser: Launched;
let receiver: Receiver;
let merchant: TestMerchant;
const ids: Record<string, string> = {};

async function call(method: string, url: string, payload?: unknown): Promise<any> {
  const res = await svc.app.inject({
    method: method as 'GET',
    url: `/api/v1/merchant${url}`,
    headers: merchant.auth,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.body ? res.json().data : undefined;
}

/** Each resource on its own: a route that has not landed yet fails only the views that need it. */
async function seed(): Promise<void> {
  const attempts: [string, () => Promise<void>][] = [
    [
      'app',
      async () => {
        const app = await call('POST', '/developer/apps', {
          name: 'Inventory Sync',
          description: 'Keeps stock levels in step with the warehouse.',
          redirect_uris: ['https://sync.example.com/oauth/callback', 'http://localhost:3000/callback'],
          allowed_scopes: ['public:read', 'public:write'],
        });
        ids.app = app.id;
        ids.clientId = app.client_id;
      },
    ],
    [
      'connection',
      async () => {
        const authorize = await svc.app.inject({
          url: `/api/public/v1/oauth/authorize?${new URLSearchParams({
            response_type: 'code',
            client_id: ids.clientId!,
            redirect_uri: 'https://sync.example.com/oauth/callback',
            scope: 'public:read',
            state: 'xyz',
            code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
            code_challenge_method: 'S256',
          })}`,
          headers: { ...merchant.auth, accept: 'application/json' },
        });
        if (authorize.statusCode !== 200) throw new Error(`authorize: ${authorize.statusCode}`);
        const consent = await svc.app.inject({
          method: 'POST',
          url: '/api/public/v1/oauth/authorize/consent',
          headers: merchant.auth,
          payload: { consent_id: authorize.json().data.consent_id, approve: true },
        });
        if (consent.statusCode !== 200) throw new Error(`consent: ${consent.statusCode} ${consent.body}`);
      },
    ],
    [
      'keys',
      async () => {
        await call('POST', '/api-keys', { name: 'Reporting (read only)', scopes: ['public:read'] });
        const old = await call('POST', '/api-keys', { name: 'Checkout server' });
        await call('POST', `/api-keys/${old.id}/rotate`, { previous_key_expires_in: 86_400 });
        const gone = await call('POST', '/api-keys', { name: 'Old laptop' });
        await call('POST', `/api-keys/${gone.id}/revoke`);
      },
    ],
    [
      'webhook',
      async () => {
        const wh = await call('POST', '/webhooks', {
          url: receiver.url,
          events: ['order.created', 'order.paid', 'cart.abandoned'],
          description: 'Fulfilment service',
        });
        ids.webhook = wh.id;
        const delivery = await call('POST', `/webhooks/${wh.id}/test`, { event: 'order.paid' });
        ids.delivery = delivery.id;
        await call('POST', '/webhooks', {
          url: 'https://hooks.example.com/svc',
          events: ['customer.created'],
        });
      },
    ],
  ];
  for (const [name, run] of attempts) {
    try {
      await run();
    } catch (err) {
      ids[`${name}Error`] = String(err);
    }
  }
}

beforeAll(async () => {
  [svc, browser, receiver] = await Promise.all([
    startTestService({ listen: true, workers: true }),
    launchBrowser(),
    startReceiver(),
  ]);
  merchant = await signupMerchant(svc.app, 'Corner Shop');
  await seed();
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await svc?.close();
});

async function signIn(page: Page): Promise<void> {
  await signInWith(page, svc.url, merchant);
}

interface View {
  name: string;
  path: () => string;
  needs?: string;
  /** What to do on the page before the scan (open a dialog, expand a row). */
  then?: (page: Page) => Promise<void>;
}

const DEV = '/dashboard/settings/developers';
const VIEWS: View[] = [
  { name: 'apps', path: () => `${DEV}/apps`, needs: 'app' },
  { name: 'app-new', path: () => `${DEV}/apps/new` },
  { name: 'app-detail', path: () => `${DEV}/apps/${ids.app}`, needs: 'app' },
  {
    name: 'app-rotate-dialog',
    path: () => `${DEV}/apps/${ids.app}`,
    needs: 'app',
    then: (page) => page.getByRole('button', { name: 'Rotate secret' }).click(),
  },
  {
    name: 'app-delete-dialog',
    path: () => `${DEV}/apps/${ids.app}`,
    needs: 'app',
    then: (page) => page.getByRole('button', { name: 'Delete' }).click(),
  },
  { name: 'connected-apps', path: () => `${DEV}/connected-apps`, needs: 'connection' },
  { name: 'keys', path: () => `${DEV}/keys`, needs: 'keys' },
  {
    name: 'keys-generate-dialog',
    path: () => `${DEV}/keys`,
    then: (page) => page.getByRole('button', { name: 'Generate key pair' }).click(),
  },
  { name: 'webhooks', path: () => `${DEV}/webhooks`, needs: 'webhook' },
  { name: 'webhook-new', path: () => `${DEV}/webhooks/new` },
  { name: 'webhook-detail', path: () => `${DEV}/webhooks/${ids.webhook}`, needs: 'webhook' },
  {
    name: 'delivery',
    path: () => `${DEV}/webhooks/${ids.webhook}/deliveries/${ids.delivery}`,
    needs: 'webhook',
  },
  {
    name: 'logs',
    path: () => `${DEV}/logs`,
    then: async (page) => {
      await page
        .getByRole('button', { name: /Show details/ })
        .first()
        .click();
    },
  },
  { name: 'not-found', path: () => '/dashboard/nowhere' },
];

for (const [label, viewport] of [
  ['1280', DESKTOP],
  ['375', PHONE],
] as const) {
  describe(`at ${label} px`, () => {
    let s: Session;
    beforeAll(async () => {
      s = await browser.open({ viewport });
    });
    afterAll(async () => s?.close());

    async function check(name: string): Promise<void> {
      const { page } = s;
      await settled(page);
      // Soft: one view's finding must not hide the others' (and the walk goes on to sign in).
      // The colour rules at 1280 px only: the same view's colours at 375 px are the same.
      expect.soft(await seriousViolations(page, { colours: label === '1280' }), `axe on ${name}`).toEqual([]);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect.soft(overflow, `${name} scrolls sideways`).toBeLessThanOrEqual(0);
      await screenshot(page, `${name}-${label}`);
      expect.soft(s.errors, `console errors on ${name}`).toEqual([]);
      s.errors.length = 0;
    }

    it('sign-in and sign-up', async () => {
      await s.page.goto(`${svc.url}/dashboard/settings/developers/keys`);
      await s.page.getByRole('heading', { name: 'Sign in to your account' }).waitFor();
      await check('signin');
      await s.page.getByRole('link', { name: 'Create an account' }).click();
      await s.page.getByRole('heading', { name: 'Create your account' }).waitFor();
      await check('signup');
      await signIn(s.page);
      // The page asked for before signing in is the one shown after.
      expect(new URL(s.page.url()).pathname).toBe(`${DEV}/keys`);
    });

    for (const view of VIEWS) {
      it(view.name, async () => {
        if (view.needs) expect(ids[`${view.needs}Error`], `seeding ${view.needs}`).toBeUndefined();
        await s.page.goto(svc.url + view.path());
        await s.page.getByRole('heading', { level: 1, name: 'Developers' }).waitFor();
        await settled(s.page);
        await view.then?.(s.page);
        await check(view.name);
      });
    }

    it('live mode: no banner, and every call says X-Svc-Mode: live', async () => {
      const { page } = s;
      await page.goto(`${svc.url}${DEV}/webhooks`);
      await settled(page);
      expect(await page.getByRole('note', { name: 'Test mode' }).count()).toBe(1);
      const request = page.waitForRequest((r) => r.url().includes('/api/v1/merchant/webhooks'));
      await page.getByRole('switch', { name: 'Test mode' }).click();
      expect((await request).headers()['x-svc-mode']).toBe('live');
      await settled(page);
      expect(await page.getByRole('note', { name: 'Test mode' }).count()).toBe(0);
      expect(await page.getByRole('switch', { name: 'Test mode' }).getAttribute('aria-checked')).toBe(
        'false',
      );
      // Test data does not show in live mode.
      expect(await page.getByText('No webhook endpoints yet.').isVisible()).toBe(true);
      await check('live-webhooks');
      await page.getByRole('switch', { name: 'Test mode' }).click();
      await page.getByRole('note', { name: 'Test mode' }).waitFor();
    });
  });
}
