// The shared security suite: every route of the merchant interface, found in the app's own route table (so a
// new route is covered the day it is added), answers a missing credential, a bad credential and a bad mode
// with the contract's codes, and never serves another merchant's or the other mode's resources.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { createFixtures, fillPath, validBody, type Fixtures } from './fixtures.ts';

let svc: TestService;
let owner: TestMerchant;
let intruder: TestMerchant;
let fixtures: Fixtures;

beforeAll(async () => {
  svc = await startTestService({ listen: true });
  owner = await signupMerchant(svc.app, 'Owner');
  intruder = await signupMerchant(svc.app, 'Intruder');
  fixtures = await createFixtures(svc, owner);
});
afterAll(async () => {
  fixtures?.receiver.close();
  await svc?.close();
});

/** The routes this walk covers: every merchant route but signup and login. */
const MERCHANT_ROUTES = [
  'DELETE /api/v1/merchant/auth/mfa/totp',
  'DELETE /api/v1/merchant/auth/passkeys/:passkeyID',
  'DELETE /api/v1/merchant/auth/sessions/:sessionID',
  'DELETE /api/v1/merchant/developer/apps/:appID',
  'DELETE /api/v1/merchant/developer/connections/:grantID',
  'DELETE /api/v1/merchant/members/:userID',
  'DELETE /api/v1/merchant/members/invitations/:invitationID',
  'DELETE /api/v1/merchant/webhooks/:webhookID',
  'DELETE /api/v1/merchant/webhooks/:webhookID/replays/:replayID',
  'GET /api/v1/merchant/api-keys',
  'GET /api/v1/merchant/auth/mfa',
  'GET /api/v1/merchant/auth/passkeys',
  'GET /api/v1/merchant/auth/sessions',
  'GET /api/v1/merchant/developer/apps',
  'GET /api/v1/merchant/developer/apps/:appID',
  'GET /api/v1/merchant/developer/apps/:appID/installations',
  'GET /api/v1/merchant/developer/apps/:appID/installs',
  'GET /api/v1/merchant/developer/connections',
  'GET /api/v1/merchant/developer/logs',
  'GET /api/v1/merchant/developer/logs/chain',
  'GET /api/v1/merchant/developer/logs/checkpoint',
  'GET /api/v1/merchant/developer/logs/export',
  'GET /api/v1/merchant/developer/requests',
  'GET /api/v1/merchant/developer/requests/:requestID',
  'GET /api/v1/merchant/events',
  'GET /api/v1/merchant/events/:eventID',
  'GET /api/v1/merchant/events/:eventID/resend-targets',
  'GET /api/v1/merchant/former-members',
  'GET /api/v1/merchant/me',
  'GET /api/v1/merchant/members',
  'GET /api/v1/merchant/members/:userID/exposed-credentials',
  'GET /api/v1/merchant/members/invitations',
  'GET /api/v1/merchant/settings',
  'GET /api/v1/merchant/webhook-attempts',
  'GET /api/v1/merchant/webhook-source-addresses',
  'GET /api/v1/merchant/webhooks',
  'GET /api/v1/merchant/webhooks/:webhookID',
  'GET /api/v1/merchant/webhooks/:webhookID/deliveries',
  'GET /api/v1/merchant/webhooks/:webhookID/deliveries/:deliveryID',
  'GET /api/v1/merchant/webhooks/:webhookID/replays',
  'GET /api/v1/merchant/webhooks/:webhookID/replays/:replayID',
  'GET /api/v1/merchant/webhooks/events',
  'GET /api/v1/merchant/webhooks/listen',
  'PATCH /api/v1/merchant/apps/:appID',
  'PATCH /api/v1/merchant/developer/apps/:appID',
  'PATCH /api/v1/merchant/members/:userID',
  'PATCH /api/v1/merchant/settings',
  'PATCH /api/v1/merchant/webhooks/:webhookID',
  'POST /api/v1/merchant/api-keys',
  'POST /api/v1/merchant/api-keys/:keyID/revoke',
  'POST /api/v1/merchant/api-keys/:keyID/rotate',
  'POST /api/v1/merchant/auth/logout',
  'POST /api/v1/merchant/auth/mfa/recovery-codes',
  'POST /api/v1/merchant/auth/mfa/totp',
  'POST /api/v1/merchant/auth/mfa/totp/confirm',
  'POST /api/v1/merchant/auth/passkeys',
  'POST /api/v1/merchant/auth/passkeys/options',
  'POST /api/v1/merchant/auth/step-up',
  'POST /api/v1/merchant/auth/step-up/options',
  'POST /api/v1/merchant/auth/switch',
  'POST /api/v1/merchant/developer/apps',
  'POST /api/v1/merchant/developer/apps/:appID/rotate-secret',
  'POST /api/v1/merchant/events/:eventID/resend',
  'POST /api/v1/merchant/events/trigger',
  'POST /api/v1/merchant/members/:userID/exposed-credentials/rotate',
  'POST /api/v1/merchant/members/invitations',
  'POST /api/v1/merchant/webhooks',
  'POST /api/v1/merchant/webhooks/:webhookID/deliveries/:deliveryID/report',
  'POST /api/v1/merchant/webhooks/:webhookID/deliveries/:deliveryID/retry',
  'POST /api/v1/merchant/webhooks/:webhookID/disable',
  'POST /api/v1/merchant/webhooks/:webhookID/enable',
  'POST /api/v1/merchant/webhooks/:webhookID/recover',
  'POST /api/v1/merchant/webhooks/:webhookID/replays',
  'POST /api/v1/merchant/webhooks/:webhookID/reveal-secret',
  'POST /api/v1/merchant/webhooks/:webhookID/rotate-secret',
  'POST /api/v1/merchant/webhooks/:webhookID/test',
];

/** Resources of the merchant (or its user) rather than of a mode: the other mode sees them too. */
const UNMODED = /^\/api\/v1\/merchant\/(members|auth)\//;

function merchantRoutes() {
  const routes: { method: string; url: string }[] = [];
  for (const route of svc.app.routeTable) {
    if (!route.url.startsWith('/api/v1/merchant/') || route.anonymous) continue;
    for (const method of route.methods) if (method !== 'HEAD') routes.push({ method, url: route.url });
  }
  return routes;
}

describe('every merchant route', () => {
  it('is one the contract lists, and none is missing', () => {
    // Every route under the prefix, by name: a route added or lost fails here, and then this walk covers it.
    const walked = merchantRoutes().map((r) => `${r.method} ${r.url}`);
    expect(walked.sort()).toEqual(MERCHANT_ROUTES);
    // Those that need no session (their credential is in the body), and so are not walked.
    const anonymous = svc.app.routeTable
      .filter((r) => r.url.startsWith('/api/v1/merchant/') && r.anonymous)
      .flatMap((r) => [...r.methods].filter((m) => m !== 'HEAD').map((m) => `${m} ${r.url}`));
    expect(anonymous.sort()).toEqual([
      'POST /api/v1/merchant/auth/accept-invitation',
      'POST /api/v1/merchant/auth/invitation',
      'POST /api/v1/merchant/auth/login',
      'POST /api/v1/merchant/auth/login/mfa',
      'POST /api/v1/merchant/auth/login/passkey',
      'POST /api/v1/merchant/auth/login/passkey/options',
      'POST /api/v1/merchant/auth/signup',
    ]);
  });

  it('answers 401 unauthenticated without a credential', async () => {
    for (const { method, url } of merchantRoutes()) {
      const res = await svc.app.inject({ method: method as 'GET', url: fillPath(url, fixtures) });
      expect([`${method} ${url}`, res.statusCode, res.json().error?.code]).toEqual([
        `${method} ${url}`,
        401,
        'unauthenticated',
      ]);
    }
  });

  it('answers 401 invalid_credential for a malformed, unknown or signed-out session', async () => {
    const login = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/login',
      payload: { email: intruder.email, password: intruder.password },
    });
    const ended = login.json().data.token as string;
    await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/logout',
      headers: { authorization: `Bearer ${ended}` },
    });
    for (const token of ['nonsense', 'svc_mst_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', ended]) {
      for (const { method, url } of merchantRoutes()) {
        const res = await svc.app.inject({
          method: method as 'GET',
          url: fillPath(url, fixtures),
          headers: { authorization: `Bearer ${token}` },
        });
        expect([`${method} ${url}`, res.statusCode, res.json().error?.code]).toEqual([
          `${method} ${url}`,
          401,
          'invalid_credential',
        ]);
      }
    }
  });

  it('answers 400 invalid_mode for a bad X-Svc-Mode', async () => {
    for (const { method, url } of merchantRoutes()) {
      const res = await svc.app.inject({
        method: method as 'GET',
        url: fillPath(url, fixtures),
        headers: { ...owner.auth, 'x-svc-mode': 'staging' },
      });
      expect([`${method} ${url}`, res.statusCode, res.json().error?.code]).toEqual([
        `${method} ${url}`,
        400,
        'invalid_mode',
      ]);
    }
  });

  it("answers 404 not_found for another merchant's resources, and for the other mode's", async () => {
    const withIds = merchantRoutes().filter((r) => r.url.includes('/:'));
    for (const { method, url } of withIds) {
      const path = fillPath(url, fixtures);
      // Members, invitations and sessions belong to the merchant or the user, in both modes alike.
      const moded = !UNMODED.test(url);
      for (const headers of moded
        ? [intruder.auth, { ...owner.auth, 'x-svc-mode': 'live' }]
        : [intruder.auth]) {
        const res = await svc.app.inject({
          method: method as 'GET',
          url: path,
          headers,
          payload: validBody(method, url, fixtures),
        });
        const code = res.body ? res.json().error?.code : undefined;
        expect([
          `${method} ${url}`,
          headers === intruder.auth ? 'other merchant' : 'other mode',
          res.statusCode,
          code,
        ]).toEqual([
          `${method} ${url}`,
          headers === intruder.auth ? 'other merchant' : 'other mode',
          404,
          'not_found',
        ]);
      }
    }
  });

  it("lists none of another merchant's resources", async () => {
    // The listen stream is not a list and stays open: test/cli/listen.test.ts covers what it shows.
    const lists = merchantRoutes().filter(
      (r) => r.method === 'GET' && !r.url.includes('/:') && !r.url.endsWith('/webhooks/listen'),
    );
    for (const { url } of lists) {
      const res = await svc.app.inject({ url, headers: intruder.auth });
      const text = res.body;
      for (const id of Object.values(fixtures.ids)) expect([url, text.includes(id)]).toEqual([url, false]);
    }
  });
});
