// The app's requests for its owner (API.md section 12.3) on a real database: a call made with an app's access
// token on another merchant's store is listed for that merchant as before and for the app's owner under
// `app_id`, each entry carrying `app_id` and `store_id`; `store_id` narrows it; a call refused because the
// installation was disconnected, or the token expired, is listed for the owner only. The owner's own list
// (without `app_id`) and every other merchant's stay as they were. The recorder's buffer is flushed by hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { createApp, exchange, getCode, type TestApp } from '../oauth/helpers.ts';
import { sweepExpired } from '../../src/modules/oauth/index.ts';
import type { Requests } from '../../src/modules/requests/index.ts';

let now = Date.parse('2026-12-02T10:00:00.000Z');
const clock = { now: () => now };

let svc: TestService;
let dev: TestMerchant;
let shopA: TestMerchant;
let shopB: TestMerchant;
let client: TestApp;
let other: TestApp;

const flush = () => (svc.modules.find((x) => x.name === 'requests') as Requests).batch.flush();

async function requests(merchant: TestMerchant, query = '') {
  const res = await svc.app.inject({
    url: `/api/v1/merchant/developer/requests${query}`,
    headers: { ...merchant.auth, 'x-svc-mode': 'test' },
  });
  expect(res.statusCode).toBe(200);
  return res.json().data as {
    items: {
      id: string;
      status: number;
      error_code: string | null;
      app_id: string | null;
      store_id: string | null;
      credential: { type: string; id: string };
    }[];
    count: number;
  };
}

function call(token: string, requestId: string, url = '/api/public/v1/stores') {
  return svc.app.inject({ url, headers: { authorization: `Bearer ${token}`, 'x-request-id': requestId } });
}

async function install(app: TestApp, merchant: TestMerchant) {
  const { code, verifier } = await getCode(svc.app, app, merchant);
  return exchange(svc.app, app, code, verifier);
}

async function disconnect(merchant: TestMerchant, app: TestApp) {
  const list = await svc.app.inject({
    url: '/api/v1/merchant/developer/connections',
    headers: merchant.auth,
  });
  const grant = (list.json().data.items as { id: string; app: { id: string } }[]).find(
    (g) => g.app.id === app.id,
  )!;
  const res = await svc.app.inject({
    method: 'DELETE',
    url: `/api/v1/merchant/developer/connections/${grant.id}`,
    headers: merchant.auth,
  });
  expect(res.statusCode).toBe(204);
}

beforeAll(async () => {
  svc = await startTestService({ clock, env: { SVC_SESSION_TTL: String(30 * 86_400) } });
  dev = await signupMerchant(svc.app, 'App developer');
  shopA = await signupMerchant(svc.app, 'Shop A');
  shopB = await signupMerchant(svc.app, 'Shop B');
  client = await createApp(svc.app, dev);
  other = await createApp(svc.app, dev, { name: 'Other app' });
});
afterAll(async () => svc?.close());

describe("the app's calls, for its owner", () => {
  it("lists the app's calls on every installing store for the owner, and each store's for that store", async () => {
    const a = await install(client, shopA);
    const b = await install(client, shopB);
    const own = await install(client, dev);
    const unrelated = await install(other, shopA);
    now += 1000;
    expect((await call(a.access_token, 'req_app_on_a')).statusCode).toBe(200);
    now += 1000;
    expect((await call(b.access_token, 'req_app_on_b')).statusCode).toBe(200);
    now += 1000;
    expect((await call(own.access_token, 'req_app_on_own')).statusCode).toBe(200);
    now += 1000;
    expect((await call(unrelated.access_token, 'req_other_app')).statusCode).toBe(200);
    await flush();

    const forOwner = await requests(dev, `?app_id=${client.id}`);
    const ids = forOwner.items.map((e) => e.id);
    expect(ids.slice(0, 3)).toEqual(['req_app_on_own', 'req_app_on_b', 'req_app_on_a']);
    // the token exchanges, authenticated by the app's secret, are the app's calls too
    expect(forOwner.items.slice(3).every((e) => e.credential.type === 'client_secret')).toBe(true);
    expect(forOwner.count).toBe(forOwner.items.length);
    const onA = forOwner.items.find((e) => e.id === 'req_app_on_a')!;
    expect(onA).toMatchObject({
      app_id: client.id,
      store_id: shopA.storeId,
      status: 200,
      credential: { type: 'access_token', id: client.id },
    });
    expect(forOwner.items.find((e) => e.id === 'req_app_on_own')!.store_id).toBe(dev.storeId);
    expect(ids).not.toContain('req_other_app');

    // the installing merchant keeps its entry, which now names the app and the store
    const mine = await requests(shopA);
    expect(mine.items.find((e) => e.id === 'req_app_on_a')).toMatchObject({
      app_id: client.id,
      store_id: shopA.storeId,
    });
    expect(mine.items.map((e) => e.id)).not.toContain('req_app_on_b');
    // an installing merchant's app filter is its own calls of that app, never the other stores'
    expect((await requests(shopA, `?app_id=${client.id}`)).items.map((e) => e.id)).toEqual(['req_app_on_a']);
  });

  it("keeps the owner's own list as it was: the calls on other stores only under app_id", async () => {
    const list = await requests(dev);
    const ids = list.items.map((e) => e.id);
    expect(ids).toContain('req_app_on_own');
    expect(ids).not.toContain('req_app_on_a');
    expect(ids).not.toContain('req_app_on_b');
    expect(list.count).toBe(list.items.length);
    const byCredential = await requests(dev, `?credential_id=${client.id}`);
    expect(byCredential.items.map((e) => e.id)).not.toContain('req_app_on_a');
    // the detail of the owner's entry opens, with nothing of the installing merchant's audit or events
    const detail = await svc.app.inject({
      url: '/api/v1/merchant/developer/requests/req_app_on_a',
      headers: { ...dev.auth, 'x-svc-mode': 'test' },
    });
    expect(detail.statusCode).toBe(200);
    expect(detail.json().data).toMatchObject({
      app_id: client.id,
      store_id: shopA.storeId,
      audit_entries: [],
      deliveries: [],
    });
  });

  it('narrows by store, with counts from the counters and by counting alike', async () => {
    const onB = await requests(dev, `?app_id=${client.id}&store_id=${shopB.storeId}`);
    expect(onB.items.map((e) => e.id)).toEqual(['req_app_on_b']);
    expect(onB.count).toBe(1);
    const okOnB = await requests(dev, `?app_id=${client.id}&store_id=${shopB.storeId}&status=2xx`);
    expect(okOnB).toMatchObject({ count: 1 });
    const pageOne = await requests(dev, `?app_id=${client.id}&limit=1`);
    expect(pageOne.items.map((e) => e.id)).toEqual(['req_app_on_own']);
    const pageTwo = await requests(dev, `?app_id=${client.id}&limit=1&starting_after=req_app_on_own`);
    expect(pageTwo.items.map((e) => e.id)).toEqual(['req_app_on_b']);
  });

  it('refuses a malformed filter', async () => {
    for (const q of ['?app_id=key_nope', '?store_id=nope']) {
      const res = await svc.app.inject({
        url: `/api/v1/merchant/developer/requests${q}`,
        headers: { ...dev.auth, 'x-svc-mode': 'test' },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('validation_failed');
    }
  });
});

describe('refused calls of the app', () => {
  it('lists a call made after the store disconnected the app for the owner only', async () => {
    const shopC = await signupMerchant(svc.app, 'Shop C');
    const c = await install(client, shopC);
    // the token is in this process's cache, as on a busy app; the disconnection drops it everywhere
    expect((await call(c.access_token, 'req_before_disconnect')).statusCode).toBe(200);
    await disconnect(shopC, client);
    now += 1000;
    const refused = await call(c.access_token, 'req_after_disconnect');
    expect(refused.statusCode).toBe(401);
    await flush();

    const entry = (await requests(dev, `?app_id=${client.id}&status=401`)).items.find(
      (e) => e.id === 'req_after_disconnect',
    );
    expect(entry).toMatchObject({
      status: 401,
      error_code: 'invalid_credential',
      app_id: client.id,
      store_id: shopC.storeId,
      credential: { type: 'access_token', id: client.id },
    });
    expect((await requests(shopC)).items.map((e) => e.id)).not.toContain('req_after_disconnect');
    expect((await requests(dev)).items.map((e) => e.id)).not.toContain('req_after_disconnect');
  });

  it('lists a call made with an expired token for the owner, and forgets the token an hour on', async () => {
    const shopD = await signupMerchant(svc.app, 'Shop D');
    const d = await install(client, shopD);
    now += (d.expires_in + 60) * 1000;
    expect((await call(d.access_token, 'req_expired_token')).statusCode).toBe(401);
    // the purge keeps an expired access token an hour, so a process that never saw it still knows whose it is
    await sweepExpired(svc.ctx);
    const elsewhere = async (requestId: string) => {
      const second = await startTestService({ clock, shareWith: svc });
      try {
        const res = await second.app.inject({
          url: '/api/public/v1/stores',
          headers: { authorization: `Bearer ${d.access_token}`, 'x-request-id': requestId },
        });
        expect(res.statusCode).toBe(401);
        await (second.modules.find((x) => x.name === 'requests') as Requests).batch.flush();
      } finally {
        await second.close();
      }
    };
    await elsewhere('req_expired_elsewhere');
    now += 3600 * 1000;
    await sweepExpired(svc.ctx);
    await elsewhere('req_expired_forgotten');
    await flush();
    const ids = (await requests(dev, `?app_id=${client.id}`)).items.map((e) => e.id);
    expect(ids).toContain('req_expired_token');
    expect(ids).toContain('req_expired_elsewhere');
    expect(ids).not.toContain('req_expired_forgotten');
    expect((await requests(shopD)).items.map((e) => e.id)).not.toContain('req_expired_token');
  });

  it('records nothing for an access token that was never issued', async () => {
    const res = await call('svc_oat_nope', 'req_never_issued');
    expect(res.statusCode).toBe(401);
    await flush();
    expect((await requests(dev, `?app_id=${client.id}`)).items.map((e) => e.id)).not.toContain(
      'req_never_issued',
    );
  });
});
