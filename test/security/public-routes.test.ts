// The shared security suite, public interface: every route under /api/public/v1, found in the app's own route
// table (so a new route is covered the day it is added), refuses a missing, malformed, revoked or other-mode
// credential with the contract's codes (API.md sections 1 and 6), and never acts on another merchant's store.
//
// The OAuth protocol endpoints under /api/public/v1/oauth/ are listed but not walked: they do not take a
// bearer credential. The token, revoke and introspect endpoints authenticate the client (RFC 6749 2.3) and
// answer in RFC form (`invalid_client`); authorize and consent take the merchant session. test/oauth/ covers
// each of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { createKey, keyCall, type TestKey } from '../api-keys/keys.ts';
import { basic, createApp, exchange, getCode, type TestApp } from '../oauth/helpers.ts';
import { fillPath } from './fixtures.ts';

const PUBLIC = '/api/public/v1/';
const OAUTH = '/api/public/v1/oauth/';
/** The app's own routes (API.md section 12.3): an app token's, and no store credential's. */
const APP = '/api/public/v1/app/';

let svc: TestService;
let owner: TestMerchant;
let intruder: TestMerchant;
let oauthApp: TestApp;
/** An app with an installation on the owner's store, and its app token (client_credentials). */
let selfManaged: TestApp;
let appToken: string;
let grantId: string;
/** Live credentials of the owner, by name: each is refused in every way below. */
const good: Record<string, { token: string; mode: 'test' | 'live'; writes: boolean }> = {};
const revoked: Record<string, string> = {};
/** The intruder's own live credentials, aimed at the owner's store. */
const foreign: Record<string, { token: string; writes: boolean }> = {};

async function accessToken(merchant: TestMerchant): Promise<string> {
  const { code, verifier } = await getCode(svc.app, oauthApp, merchant);
  return (await exchange(svc.app, oauthApp, code, verifier)).access_token;
}

beforeAll(async () => {
  svc = await startTestService();
  owner = await signupMerchant(svc.app, 'Owner');
  intruder = await signupMerchant(svc.app, 'Intruder');
  const developer = await signupMerchant(svc.app, 'Developer');
  oauthApp = await createApp(svc.app, developer);

  for (const mode of ['test', 'live'] as const) {
    const key: TestKey = await createKey(svc.app, owner, { mode });
    good[`${mode} secret key`] = { token: key.secret_key, mode, writes: true };
    good[`${mode} publishable key`] = { token: key.publishable_key, mode, writes: false };
    const gone = await createKey(svc.app, owner, { mode });
    expect((await keyCall(svc.app, owner, gone.id, 'revoke', { mode })).statusCode).toBe(200);
    revoked[`${mode} secret key`] = gone.secret_key;
    revoked[`${mode} publishable key`] = gone.publishable_key;
  }
  good['access token'] = { token: await accessToken(owner), mode: 'test', writes: true };
  const revokedToken = await accessToken(owner);
  const revocation = await svc.app.inject({
    method: 'POST',
    url: '/api/public/v1/oauth/revoke',
    headers: basic(oauthApp),
    payload: { token: revokedToken },
  });
  expect(revocation.statusCode).toBe(200);
  revoked['access token'] = revokedToken;

  const theirs = await createKey(svc.app, intruder);
  foreign['secret key'] = { token: theirs.secret_key, writes: true };
  foreign['publishable key'] = { token: theirs.publishable_key, writes: false };
  foreign['access token'] = { token: await accessToken(intruder), writes: true };

  selfManaged = await createApp(svc.app, developer, { name: 'Self-managed' });
  const { code, verifier } = await getCode(svc.app, selfManaged, owner);
  await exchange(svc.app, selfManaged, code, verifier);
  const issued = await svc.app.inject({
    method: 'POST',
    url: '/api/public/v1/oauth/token',
    headers: basic(selfManaged),
    payload: { grant_type: 'client_credentials' },
  });
  appToken = issued.json().access_token;
  const listed = await svc.app.inject({ url: `${APP}installations`, headers: bearer(appToken) });
  grantId = listed.json().data.items[0].grant_id;
});
afterAll(async () => svc?.close());

/** Every method and path under /api/public/v1, OAuth endpoints included. */
function publicRoutes() {
  const routes: { method: string; url: string }[] = [];
  for (const route of svc.app.routeTable) {
    if (!route.url.startsWith(PUBLIC)) continue;
    for (const method of route.methods) if (method !== 'HEAD') routes.push({ method, url: route.url });
  }
  return routes;
}

/** Open to anyone: the addresses deliveries come from, which a receiver's firewall needs (egress.test.ts). */
const OPEN = new Set(['GET /api/public/v1/webhook-source-addresses']);

/** The routes that take a bearer credential: all but the OAuth protocol endpoints (see the top) and the open. */
function bearerRoutes() {
  return publicRoutes().filter((r) => !r.url.startsWith(OAUTH) && !OPEN.has(`${r.method} ${r.url}`));
}

/** Those of a store's credentials (keys, access tokens): all but the app's own. */
function storeRoutes() {
  return bearerRoutes().filter((r) => !r.url.startsWith(APP));
}

const ownStore = (url: string) => fillPath(url, { ids: { store: owner.storeId, grant: grantId } });

function call(method: string, url: string, headers: Record<string, string> = {}) {
  return svc.app.inject({ method: method as 'GET', url: ownStore(url), headers });
}

const bearer = (token: string, mode?: string): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  ...(mode ? { 'x-svc-mode': mode } : {}),
});

/** The answer as one comparable line: which route, which credential, status and code. */
async function outcome(route: { method: string; url: string }, who: string, headers: Record<string, string>) {
  const res = await call(route.method, route.url, headers);
  return [`${route.method} ${route.url}`, who, res.statusCode, res.json().error?.code];
}

describe('every public route', () => {
  it('is one the contract lists, and none is missing', () => {
    const listed = publicRoutes()
      .map((r) => `${r.method} ${r.url}`)
      .sort();
    expect(listed).toEqual([
      'DELETE /api/public/v1/app/installations/:grantID',
      'GET /api/public/v1/app/installations',
      'GET /api/public/v1/oauth/authorize',
      'GET /api/public/v1/payments/supported-countries',
      'GET /api/public/v1/stores',
      'GET /api/public/v1/webhook-source-addresses',
      'POST /api/public/v1/oauth/authorize/consent',
      'POST /api/public/v1/oauth/authorize/login',
      'POST /api/public/v1/oauth/introspect',
      'POST /api/public/v1/oauth/revoke',
      'POST /api/public/v1/oauth/token',
      'POST /api/public/v1/stores/:storeID/cart',
    ]);
  });

  it("serves the owner's credentials that may call it, so every refusal below is the credential's", async () => {
    for (const route of storeRoutes()) {
      for (const [name, { token, writes }] of Object.entries(good)) {
        if (route.method !== 'GET' && !writes) continue;
        const res = await call(route.method, route.url, bearer(token));
        expect([`${route.method} ${route.url}`, name, res.statusCode < 300]).toEqual([
          `${route.method} ${route.url}`,
          name,
          true,
        ]);
      }
    }
  });

  it("refuses an app token on a store's route as an unknown credential, and a store's credential on the app's", async () => {
    for (const route of storeRoutes()) {
      expect(await outcome(route, 'app token', bearer(appToken))).toEqual([
        `${route.method} ${route.url}`,
        'app token',
        401,
        'invalid_credential',
      ]);
    }
    const appRoutes = bearerRoutes().filter((r) => r.url.startsWith(APP));
    expect(appRoutes.length).toBe(2);
    for (const route of appRoutes) {
      for (const [name, { token }] of Object.entries(good)) {
        expect(await outcome(route, name, bearer(token))).toEqual([
          `${route.method} ${route.url}`,
          name,
          403,
          'insufficient_scope',
        ]);
      }
    }
    // and the app's token serves them (the uninstall last: it ends the installation)
    for (const route of [...appRoutes].sort(
      (x, y) => Number(x.method === 'DELETE') - Number(y.method === 'DELETE'),
    )) {
      const res = await call(route.method, route.url, bearer(appToken));
      expect([`${route.method} ${route.url}`, res.statusCode < 300]).toEqual([
        `${route.method} ${route.url}`,
        true,
      ]);
    }
  });

  it('answers 401 unauthenticated, with a Bearer challenge, without a credential', async () => {
    for (const route of bearerRoutes()) {
      for (const mode of [undefined, 'test', 'live']) {
        const headers: Record<string, string> = mode ? { 'x-svc-mode': mode } : {};
        const res = await call(route.method, route.url, headers);
        expect([`${route.method} ${route.url}`, res.statusCode, res.json().error?.code]).toEqual([
          `${route.method} ${route.url}`,
          401,
          'unauthenticated',
        ]);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer\b/);
      }
    }
  });

  it('answers 401 invalid_credential for a malformed one, or one of the merchant interface', async () => {
    const real = good['test secret key']!.token;
    const malformed = {
      garbage: 'garbage',
      'a key prefix with nothing after it': 'svc_test_sk_',
      'a key too short': 'svc_test_sk_short',
      'a key with a wrong checksum': real.slice(0, -1) + (real.endsWith('a') ? 'b' : 'a'),
      'a key cut short': real.slice(0, -2),
      'an access token prefix with junk': 'svc_oat_!!!!',
      'a merchant session': owner.token,
    };
    for (const route of bearerRoutes()) {
      for (const [name, token] of Object.entries(malformed)) {
        expect(await outcome(route, name, bearer(token))).toEqual([
          `${route.method} ${route.url}`,
          name,
          401,
          'invalid_credential',
        ]);
      }
    }
  });

  it('answers 401 invalid_credential for a revoked key or access token', async () => {
    for (const route of bearerRoutes()) {
      for (const [name, token] of Object.entries(revoked)) {
        expect(await outcome(route, `revoked ${name}`, bearer(token))).toEqual([
          `${route.method} ${route.url}`,
          `revoked ${name}`,
          401,
          'invalid_credential',
        ]);
      }
    }
  });

  it('answers 400 mode_mismatch for a credential of the other mode than X-Svc-Mode asks', async () => {
    for (const route of bearerRoutes()) {
      for (const [name, { token, mode }] of Object.entries(good)) {
        const other = mode === 'test' ? 'live' : 'test';
        expect(await outcome(route, `${name} as ${other}`, bearer(token, other))).toEqual([
          `${route.method} ${route.url}`,
          `${name} as ${other}`,
          400,
          'mode_mismatch',
        ]);
      }
    }
  });

  it("answers 404 not_found for another merchant's store", async () => {
    const withStore = bearerRoutes().filter((r) => r.url.includes(':storeID'));
    expect(withStore.length).toBeGreaterThan(0);
    for (const route of withStore) {
      for (const [name, { token, writes }] of Object.entries(foreign)) {
        if (route.method !== 'GET' && !writes) continue;
        expect(await outcome(route, `the intruder's ${name}`, bearer(token))).toEqual([
          `${route.method} ${route.url}`,
          `the intruder's ${name}`,
          404,
          'not_found',
        ]);
      }
    }
  });
});
